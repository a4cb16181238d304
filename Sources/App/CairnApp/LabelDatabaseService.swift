import Barcodes
import CairnCore
import Foundation
import LabelDatabase
import Regimen
import Storage
import Synchronization

/// The label database: the public NIH Dietary Supplement Label Database (DSLD, public domain), imported on this
/// computer from the bulk file the person downloaded (Cairn fetches nothing), searched by name, brand and
/// barcode, and used to propose a product's rows through the same review as a label scan.
///
/// Decisions:
/// - It is public data, text only: its own plain file, `labels.sqlite`, beside the vault's database in the vault
///   folder, never in the vault or its backups (a backup holds the database and the photos only). What the person
///   teaches (a barcode linked to a product of their own) is theirs and lives in the vault.
/// - An import builds a whole new file under a temporary name registered in `TemporaryArtefacts` (a build cut off
///   is removed by the next open) and renames it over the old one: the one commit point. A failed import leaves
///   the old database as it was.
/// - Nothing from it is saved unconfirmed: a label gives a `LabelProposal`, flagged by the same checks as a scan,
///   for the same review.
public final class LabelDatabaseService: Sendable {
    /// The label database's file name in the vault folder.
    public static let fileName = "labels.sqlite"

    let vault: Vault
    let database: Database
    /// The source of "now" (and the zone dates are shown in).
    public let clock: any Clock
    private let opened = Mutex<Opened?>(nil)
    private let madeChecker = Mutex<LabelScanService?>(nil)

    private struct Opened: @unchecked Sendable {
        let file: LabelDatabaseFile
        let device: UInt64
        let inode: UInt64
    }

    /// The service of an opened vault.
    public init(vault: Vault, database: Database, clock: any Clock) {
        self.vault = vault
        self.database = database
        self.clock = clock
    }

    /// Where the label database is kept.
    public var fileURL: URL { vault.labelDatabaseURL }

    /// What Settings shows about the label database.
    public struct Status: Sendable, Equatable, Encodable {
        /// When it was imported.
        public let importedAt: Date
        /// The name of the file it was imported from.
        public let sourceName: String
        /// How many labels it holds.
        public let labels: Int
        /// Its size on disk, in bytes.
        public let fileBytes: Int64
    }

    /// The label database's date, size and count; nil when none was imported. Throws
    /// `LabelDatabaseError.damaged` for a file Cairn cannot read.
    public func status() throws -> Status? {
        guard let file = try openFile() else { return nil }
        let about = try file.about()
        var info = stat()
        let bytes = stat(fileURL.path, &info) == 0 ? Int64(info.st_size) : 0
        return Status(importedAt: about.importedAt, sourceName: about.sourceName, labels: about.labels, fileBytes: bytes)
    }

    /// What an import did.
    public struct ImportResult: Sendable, Equatable, Encodable {
        /// Labels now in the label database.
        public let labels: Int
        /// Records of the file that were not labels, left out.
        public let leftOut: Int
        /// The file's size.
        public let fileBytes: Int64
        /// The JSON text read (unpacked), in bytes.
        public let textBytes: Int64
        /// The label database's size on disk.
        public let databaseBytes: Int64
        /// True when it replaced an earlier label database.
        public let replaced: Bool
    }

    /// Builds the label database from DSLD's bulk file at `path` (the zip, or the JSON in it), replacing any
    /// earlier one at once when it is whole. Throws `LabelDatabaseError`, `LabelFileError` or
    /// `JSONRecordStreamError` with nothing changed.
    public func importFile(
        atPath path: String, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in }
    ) throws -> ImportResult {
        let temporary = vault.directory.appendingPathComponent(".labels-\(UUID().uuidString.lowercased()).sqlite").path
        let artefact = try TemporaryArtefacts(vault: vault).register(temporary, kind: .labelDatabaseBuild)
        var done = false
        defer { artefact.finish(removing: !done) }
        let summary: DSLDBulkFile.Summary
        do {
            summary = try LabelDatabaseFile.build(
                at: temporary, from: URL(fileURLWithPath: path), importedAt: clock.now(), progress: progress)
        } catch let error as CairnError {
            throw error
        } catch {
            throw LabelFileError.unreadable
        }
        CrashPoint.reached("labels.import.built")
        let replaced = access(fileURL.path, F_OK) == 0
        try BuiltDatabase.replace(fileURL.path, with: temporary)
        done = true
        closeFile()
        var info = stat()
        let bytes = stat(fileURL.path, &info) == 0 ? Int64(info.st_size) : 0
        return ImportResult(
            labels: try openFile()?.about().labels ?? summary.labels, leftOut: summary.leftOut, fileBytes: summary.fileBytes,
            textBytes: summary.textBytes, databaseBytes: bytes, replaced: replaced)
    }

    /// Removes the label database (what the person taught stays in the vault). False when there was none.
    @discardableResult
    public func remove() throws -> Bool {
        closeFile()
        guard unlink(fileURL.path) == 0 else {
            if errno == ENOENT { return false }
            throw LabelFileError.unreadable
        }
        return true
    }

    /// Labels whose name or brand hold every word of `text`, best first. A barcode number finds its labels.
    /// Throws `LabelDatabaseError.notImported` when there is no label database.
    public func search(_ text: String, limit: Int = 20) throws -> [LabelSummary] {
        guard let file = try openFile() else { throw LabelDatabaseError.notImported }
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        if !digits.isEmpty, digits.allSatisfy(\.isNumber), let barcode = GTIN(text) {
            return try file.labels(withBarcode: barcode)
        }
        return try file.search(text, limit: limit)
    }

    /// The whole label `id`. Throws `LabelDatabaseError.notImported` or `.unknownLabel`.
    public func label(_ id: Int) throws -> LabelRecord {
        guard let file = try openFile() else { throw LabelDatabaseError.notImported }
        return try file.label(id)
    }

    /// What a barcode finds: the person's own product it was taught to, and the labels that carry it.
    public func lookUp(_ barcode: GTIN) throws -> BarcodeLookup {
        let taught = try database.read { db in try BarcodeStore(db).product(for: barcode) }
        let product = try taught.flatMap { try RegimenService(database: database, clock: clock).product($0) }
        let file = try openFile()
        let labels = try file?.labels(withBarcode: barcode) ?? []
        return BarcodeLookup(
            barcode: barcode, yourProduct: product.map { BarcodeLookup.YourProduct(id: $0.product.id.rawValue, name: $0.product.name) },
            labels: labels, labelDatabaseImported: file != nil)
    }

    /// Reads the barcode in a photo (in memory; the photo is never kept) and looks it up. A photo with no barcode
    /// Cairn can read gives a lookup without one. Throws `ImagingError` for bytes that are not an image, and
    /// `BarcodeError.unavailable` without zbar.
    public func lookUp(photo: Data) throws -> BarcodeLookup {
        guard let barcode = try BarcodeReader().read(imageData: photo).first else {
            return BarcodeLookup(barcode: nil, yourProduct: nil, labels: [], labelDatabaseImported: try openFile() != nil)
        }
        return try lookUp(barcode)
    }

    /// Links `barcode` to the person's product `product`, so the barcode finds it next time (kept in the vault).
    /// Throws `BarcodeTeachError.unknownProduct` for a product that does not exist.
    public func teach(_ barcode: GTIN, to product: ProductID) throws -> StoredProduct {
        try database.write { db in
            guard let stored = try RegimenStore(db).latestProduct(product) else { throw BarcodeTeachError.unknownProduct }
            try BarcodeStore(db).teach(barcode, product: product, at: clock.now())
            return stored
        }
    }

    /// The barcodes taught to `product`.
    public func barcodes(of product: ProductID) throws -> [GTIN] {
        try database.read { db in try BarcodeStore(db).barcodes(of: product) }
    }

    /// The label's rows proposed for review, each matched and flagged exactly as a scanned row is (`LabelGate`'s
    /// checks): nothing is saved until the person confirms.
    public func proposal(for label: LabelRecord) throws -> LabelProposal {
        let checker = try checker()
        let rows = label.rows.enumerated().map { index, row in
            checker.revalidate(
                EditedLabelRow(
                    nameOnLabel: row.name, form: row.form, amount: row.amount, dailyValuePercent: row.dailyValuePercent,
                    isBlend: row.isBlend, blendName: row.blendName), number: index + 1)
        }
        let flagged = rows.filter(\.needsDecision).count
        return LabelProposal(
            status: .proposed,
            message: flagged > 0
                ? "\(flagged) of \(rows.count) rows are flagged: each is saved only once you accept it, change it or leave it out." : nil,
            disclaimer: Disclaimer.labelReading.text, servingSize: label.servingSize,
            servingSizeText: label.servingText.isEmpty ? nil : label.servingText, servingsPerContainer: nil, rows: rows,
            otherIngredients: [], notIngredients: [], unreadLines: [],
            warnings: label.onMarket ? [] : ["The label database lists this product as off the market: check that the label matches yours."],
            mayBeIncomplete: false, meanConfidence: 1, readUpsideDown: false, photoWidth: nil, photoHeight: nil)
    }

    /// The label database's label for the barcode in a label photo, and how its rows compare with `proposal`'s
    /// (read from the same photo); nil when there is no label database, no barcode or no label for it.
    public func comparison(of proposal: LabelProposal, photo: Data) -> (label: LabelRecord, comparison: LabelComparison)? {
        guard proposal.status == .proposed, (try? openFile()) ?? nil != nil,
            let barcode = try? BarcodeReader().read(imageData: photo).first,
            let summary = try? openFile()?.labels(withBarcode: barcode).first, let label = try? self.label(summary.id)
        else { return nil }
        let comparison = LabelComparison(
            read: proposal.rows.map { ($0.nameOnLabel, $0.amount, $0.dailyValuePercent) }, database: label.rows)
        return (label, comparison)
    }

    /// The same comparison from the label database in the vault folder `directory`, without opening the vault (a
    /// scan on the command line reads no record of the person's; the label database is public data).
    public static func comparison(
        of proposal: LabelProposal, photo: Data, inVaultFolder directory: URL
    ) -> (label: LabelRecord, comparison: LabelComparison)? {
        let path = directory.appendingPathComponent(fileName).path  // `Vault.labelDatabaseURL`, before the vault is open
        guard proposal.status == .proposed, access(path, R_OK) == 0, let file = try? LabelDatabaseFile(readingAt: path) else { return nil }
        defer { file.close() }
        guard let barcode = try? BarcodeReader().read(imageData: photo).first,
            let summary = try? file.labels(withBarcode: barcode).first, let label = try? file.label(summary.id)
        else { return nil }
        return (label, LabelComparison(read: proposal.rows.map { ($0.nameOnLabel, $0.amount, $0.dailyValuePercent) }, database: label.rows))
    }

    /// A checker of rows that needs no text recognition: the bundled catalogue's matcher (the same flags as a scan).
    public func checker() throws -> LabelScanService {
        if let made = madeChecker.withLock({ $0 }) { return made }
        let made = LabelScanService(catalogue: try Catalogue.bundled(), recognizer: nil)
        madeChecker.withLock { $0 = made }
        return made
    }

    /// libzbar as `cairn doctor` reports it.
    public static func barcodeLibraryStatus() -> ComponentStatus { BarcodeReader.status() }

    // MARK: the file

    /// The label database, opened once and again when the file was replaced (another process imported).
    private func openFile() throws -> LabelDatabaseFile? {
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else {
            closeFile()
            return nil
        }
        let device = UInt64(info.st_dev)
        let inode = UInt64(info.st_ino)
        if let current = opened.withLock({ $0 }), current.device == device, current.inode == inode { return current.file }
        let file = try LabelDatabaseFile(readingAt: fileURL.path)
        opened.withLock { previous in
            previous?.file.close()
            previous = Opened(file: file, device: device, inode: inode)
        }
        return file
    }

    private func closeFile() {
        opened.withLock { current in
            current?.file.close()
            current = nil
        }
    }
}

/// What a barcode found.
public struct BarcodeLookup: Sendable, Equatable, Encodable {
    /// A product of the person's own.
    public struct YourProduct: Sendable, Equatable, Encodable {
        public let id: String
        public let name: String
    }

    /// The barcode (nil: none was read from the photo).
    public let barcode: GTIN?
    /// The person's product it was taught to, if any.
    public let yourProduct: YourProduct?
    /// The labels of the label database that carry it, newest first.
    public let labels: [LabelSummary]
    /// False when there is no label database to look in.
    public let labelDatabaseImported: Bool

    /// True when nothing knows the barcode: the person may teach it.
    public var isUnknown: Bool { barcode != nil && yourProduct == nil && labels.isEmpty }
}

/// Why a barcode could not be taught.
public enum BarcodeTeachError: CairnError, Equatable {
    /// The product does not exist.
    case unknownProduct

    public var userMessage: String { "There is no such product to link the barcode to." }
    public var errorKind: ErrorKind { .notFound }
}

extension LabelProposal {
    /// The same proposal with `rows` in place of its rows (a row replaced by the label database's values).
    public func replacingRows(_ rows: [LabelProposalRow]) -> LabelProposal {
        var copy = LabelProposal(
            status: status, message: message, disclaimer: disclaimer, servingSize: servingSize, servingSizeText: servingSizeText,
            servingsPerContainer: servingsPerContainer, rows: rows, otherIngredients: otherIngredients, notIngredients: notIngredients,
            unreadLines: unreadLines, warnings: warnings, mayBeIncomplete: mayBeIncomplete, meanConfidence: meanConfidence,
            readUpsideDown: readUpsideDown, photoWidth: photoWidth, photoHeight: photoHeight)
        copy.layout = layout
        copy.foodPanel = foodPanel
        copy.linesNotRead = linesNotRead
        return copy
    }
}
