import CairnCore
import Foundation
import HealthExport
import Regimen
import Storage

/// What one health import (Apple Health or Health Connect) did.
public struct HealthImportSummary: Sendable, Equatable {
    /// Records stored for the first time.
    public let added: Int
    /// Records already stored by an earlier import (or repeated in this export): not stored again.
    public let alreadyPresent: Int
    /// Records of types Cairn does not read, by their HealthKit type identifier.
    public let skippedByType: [String: Int]
    /// Records of kept types left out, by problem (impossible values, unreadable dates, ...).
    public let warnings: [HealthRecordProblem: Int]
    /// The size of the file read, in bytes.
    public let fileBytes: Int64

    /// A summary.
    public init(
        added: Int, alreadyPresent: Int, skippedByType: [String: Int], warnings: [HealthRecordProblem: Int],
        fileBytes: Int64, warningRecordLines: [HealthRecordProblem: [Int]] = [:]
    ) {
        self.warningRecordLines = warningRecordLines
        self.added = added
        self.alreadyPresent = alreadyPresent
        self.skippedByType = skippedByType
        self.warnings = warnings
        self.fileBytes = fileBytes
    }

    /// All records skipped for their type.
    public var skippedCount: Int { skippedByType.values.reduce(0, +) }
    /// All records left out with a warning.
    public var warningCount: Int { warnings.values.reduce(0, +) }

    /// What the import did, in sentences, as the page and the CLI say it: "12,400 new health records imported; 3 were
    /// already in Cairn." then, when some were skipped, "80 records of 2 types Cairn does not read were skipped."
    public var sentences: [String] {
        var lines = [
            "\(CountText.counted(added, "new health record")) imported; \(CountText.grouped(alreadyPresent)) \(alreadyPresent == 1 ? "was" : "were") already in Cairn."
        ]
        if skippedCount > 0 {
            let kinds = skippedByType.count
            lines.append(
                "\(CountText.counted(skippedCount, "record")) of \(kinds == 1 ? "a type" : "\(CountText.grouped(kinds)) types") Cairn does not read \(skippedCount == 1 ? "was" : "were") skipped."
            )
        }
        return lines
    }

    /// The lines of `export.xml` where the first 20 records left out for each problem start.
    public let warningRecordLines: [HealthRecordProblem: [Int]]

    /// The records left out, one line per reason, in a stable order, each naming the lines of `export.xml` its
    /// records start on (the first 20, then how many more: `ProblemList`): "2 records dated before 1900-01-01 or
    /// after tomorrow (export.xml lines 5 and 9)".
    public var warningLines: [String] {
        warnings.sorted { $0.key < $1.key }.map { problem, count in
            let lines = warningRecordLines[problem] ?? []
            guard !lines.isEmpty else { return "\(CountText.grouped(count)) \(problem.summary)" }
            let shown = lines.map(String.init)
            var list = shown.count == 1 ? shown[0] : shown.dropLast().joined(separator: ", ") + " and " + shown.last!
            if count > lines.count { list = shown.joined(separator: ", ") + " … and \(CountText.grouped(count - lines.count)) more" }
            return "\(CountText.grouped(count)) \(problem.summary) (export.xml line\(count == 1 ? "" : "s") \(list))"
        }
    }
}

/// Health data, imported read-only from Apple Health's export or Google Health Connect's (`HealthExportFormat`,
/// told from the file's contents). The only way health samples enter the vault; Cairn never writes health data
/// back anywhere. Both exports go through the same batches, the same samples table and the same daily values, so
/// a day's steps from an iPhone and from an Android phone are merged by one rule (`HealthDailyValues`).
///
/// An import commits in batches (`BatchedImport`, about 0.1 s each), so a long one never holds the vault:
/// other commands and pages read and write between its batches. Its samples are recorded under one
/// `health_imports` row, which counts as finished only once its totals are written (`file_bytes` > 0 — a real
/// export is never empty); until then nothing reads them. A failure midway (malformed XML, a truncated file, a
/// full disk) removes the import's row and every sample recorded under it in one transaction, and an import
/// cut off by a crash or `kill -9` is removed the same way the next time a process that may write opens the
/// vault (`removeInterruptedImports`). Re-importing a newer export adds only records not stored before
/// (Apple's records are identified by the tuple of their fields, Health Connect's by their uuids: see
/// `HealthRecord.identityBytes`).
public final class HealthService: @unchecked Sendable {
    private let database: Database
    private let clock: any Clock
    private let reader: HealthExportReader

    /// A service over a migrated database.
    public init(database: Database, clock: any Clock, reader: HealthExportReader = HealthExportReader()) {
        self.database = database
        self.clock = clock
        self.reader = reader
    }

    /// Imports an export that arrived as bytes (an upload), read where it is in memory: no copy of it is written
    /// to disk (a locked vault keeps nothing in the clear; see `importExport(at:)` for the rest).
    public func importExport(contents: Data, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in })
        throws -> HealthImportSummary
    {
        try importExport(.bytes(contents), progress: progress)
    }

    /// Removes upload temp files (`.health-upload-*`) that earlier versions, which wrote an upload to disk before
    /// importing it, left behind when an import was interrupted (none that a running import still holds); returns
    /// how many.
    @discardableResult
    public func removeLeftoverUploads() -> Int {
        leftovers(prefix: Self.uploadPrefix).reduce(0) { count, leftover in
            (try? FileManager.default.removeItem(atPath: leftover.path)) == nil ? count : count + 1
        }
    }

    /// Removes every import cut off by a crash (its marker is no longer locked): its samples, its sources that
    /// nothing else uses and its row, in one transaction per import. Returns how many imports were removed.
    @discardableResult
    public func removeInterruptedImports() throws -> Int {
        try batchedImport.removeInterrupted(fieldCount: 3)
    }

    private static let uploadPrefix = ".health-upload-"
    private var scratchDirectory: URL { URL(fileURLWithPath: database.path).deletingLastPathComponent() }

    /// The files beside the database named `prefix…` whose lock nobody holds (each returned locked by us).
    private func leftovers(prefix: String) -> [(path: String, lock: FileLock)] {
        BatchedImport.leftovers(in: scratchDirectory, prefix: prefix)
    }

    /// How an import writes: in batches under one `health_imports` row. The marker holds the row's id and the
    /// first sample and source ids it could use; a rollback removes the samples recorded under the id, the row
    /// if unfinished, and the sources from that id on that no sample uses.
    private var batchedImport: BatchedImport {
        BatchedImport(database: database, kind: "health") { marker, db in
            try HealthStore(db).removeUnfinishedImport(.init(importID: marker[0], firstSample: marker[1], firstSource: marker[2]))
        }
    }

    /// Imports an `export.zip` or `export.xml`, streaming it (constant memory whatever its size), or a Health
    /// Connect export's zip, in batches.
    ///
    /// - Parameter progress: called as the file is read with (bytes read so far, file size).
    /// - Throws: `HealthExportError` for a file that is not a readable, well-formed export (nothing is kept),
    ///   `DatabaseError` when the vault cannot be written.
    /// - Complexity: O(file size).
    public func importExport(at url: URL, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in })
        throws -> HealthImportSummary
    {
        try importExport(.file(url), progress: progress)
    }

    private func importExport(_ source: HealthExportSource, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void)
        throws -> HealthImportSummary
    {
        let importedAt = clock.now()
        let format = try HealthExportReader.format(of: source)
        var added = 0
        var present = 0
        return try batchedImport.run(
            begin: { db in
                let start = try HealthStore(db).beginImport(at: importedAt)
                return [start.importID, start.firstSample, start.firstSource]
            },
            body: { marker, batch in
                let importID = marker[0]
                var sources: [SourceKey: Int64] = [:]
                var sourcesBatch = 0
                return try read(source, format: format, dates: ImportDates.instants(now: importedAt, zone: clock.timeZone), progress: progress) {
                    record in
                    try batch.write { db in
                        let store = HealthStore(db)
                        // Source ids are looked up again in each batch (another import's clean-up may remove one
                        // between batches).
                        if sourcesBatch != batch.batchesStarted {
                            sources = [:]
                            sourcesBatch = batch.batchesStarted
                        }
                        let key = SourceKey(name: record.sourceName, version: record.sourceVersion, device: record.device)
                        let sourceID: Int64
                        if let known = sources[key] {
                            sourceID = known
                        } else {
                            sourceID = try store.sourceID(name: key.name, version: key.version, device: key.device)
                            sources[key] = sourceID
                        }
                        if try store.insertSample(record, importID: importID, sourceID: sourceID) { added += 1 } else { present += 1 }
                    }
                }
            },
            finish: { marker, read, db in
                try HealthStore(db).finishImport(
                    marker[0], fileBytes: read.fileBytes, recordsRead: read.recordsRead, added: added,
                    alreadyPresent: present, skipped: read.skippedCount, warnings: read.warningCount)
                if added > 0 { try InsightInputs.seriesChanged(db, metricIDs: ["health"], at: clock.now()) }
                return HealthImportSummary(
                    added: added, alreadyPresent: present, skippedByType: read.skippedByType,
                    warnings: read.warnings, fileBytes: read.fileBytes, warningRecordLines: read.warningRecordLines)
            })
    }

    /// Reads the records of `source` in its format. Health Connect's database is copied out of its zip into a 0600
    /// file in the vault folder, registered as a temporary artefact before it is made (`TemporaryArtefacts`: a
    /// process killed midway leaves it to the next open's sweep), read read-only and removed however the read ends.
    private func read(
        _ source: HealthExportSource, format: HealthExportFormat, dates: Range<Date>,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void, onRecord: (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        switch format {
        case .appleHealth: return try reader.read(source, dates: dates, progress: progress, onRecord: onRecord)
        case .healthConnect:
            let vault = try Vault(directory: scratchDirectory)
            let path = vault.directory.appendingPathComponent(".health-connect-\(UUID().uuidString.lowercased()).sqlite").path
            let artefact = try TemporaryArtefacts(vault: vault).register(path, kind: .healthConnectCopy)
            defer { artefact.finish(removing: true) }
            let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard file >= 0 else { throw HealthExportError.noRoomForHealthConnectCopy }
            do {
                defer { close(file) }
                _ = try HealthConnectExport.copyDatabase(from: source, to: file)
            }
            return try HealthConnectExport.read(databaseAt: path, dates: dates, progress: progress, onRecord: onRecord)
        }
    }

    /// Daily values of every stored sample, keyed by the pinned metric ids (`HealthMetric` raw values:
    /// `resting_heart_rate`, `hrv_sdnn`, `steps`, `body_mass`, `sleep_asleep`, `sleep_in_bed`); a metric without
    /// data is absent. Overlapping sources are merged by `HealthDailyValues`' rule, never counted twice.
    /// - Complexity: O(n log n) in the stored samples; samples are read in pages.
    public func dailyValues() throws -> [String: [LocalDay: Double]] {
        try database.read { db in
            let store = HealthStore(db)
            var sources: [HealthSource] = []
            var index: [Int64: Int] = [:]
            for (id, source) in try store.sources() {
                index[id] = sources.count
                sources.append(source)
            }
            var samples: [HealthSample] = []
            var last: Int64 = 0
            while true {
                let page = try store.finishedSamples(after: last, limit: 20_000)
                guard let lastID = page.lastID else { break }
                last = lastID
                for stored in page.samples {
                    guard let kind = stored.kind, let source = index[stored.sourceID], let start = stored.start,
                        let end = stored.end
                    else { continue }
                    var value = stored.value
                    if kind == .bodyMass {
                        guard let kilograms = BodyMassUnit.kilograms(value, unit: stored.unit) else { continue }
                        value = kilograms
                    }
                    samples.append(
                        HealthSample(
                            kind: kind, source: source, value: value, start: start, end: end,
                            timeZoneIdentifier: stored.timeZone))
                }
            }
            return HealthDailyValues.compute(samples, sources: sources)
        }
    }

    /// How many samples are stored, per kind.
    public func sampleCounts() throws -> [HealthRecordKind: Int] {
        try database.read { try HealthStore($0).sampleCounts() }
    }

    /// The number of imports recorded (failed imports leave none; a running one is not counted yet).
    public func importCount() throws -> Int {
        try database.read { try HealthStore($0).importCount() }
    }

    private struct SourceKey: Hashable {
        let name: String
        let version: String
        let device: String
    }
}
