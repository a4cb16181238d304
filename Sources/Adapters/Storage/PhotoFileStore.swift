import CairnCore
import Encryption
import Foundation

/// The image formats the vault keeps, stored as their media type.
public enum PhotoMediaType: String, Sendable, CaseIterable, Equatable {
    /// JPEG, `.jpg`.
    case jpeg = "image/jpeg"
    /// PNG, `.png`.
    case png = "image/png"
    /// HEIC, `.heic`.
    case heic = "image/heic"
    /// WebP, `.webp`.
    case webp = "image/webp"

    /// The file name extension used in the vault.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heic: return "heic"
        case .webp: return "webp"
        }
    }
}

/// A photo file kept in the vault, as its `photos` row describes it.
public struct StoredPhoto: Sendable, Equatable {
    /// The photo's identifier (the `photos.id` a journal row references).
    public let id: PhotoID
    /// The file's path relative to the vault directory, e.g. `photos/3f/3f2c....jpg`.
    public let relativePath: String
    /// What the photo is for, as the caller named it (e.g. `"skin"`, `"label"`).
    public let purpose: String
    /// The image format.
    public let mediaType: PhotoMediaType
    /// Pixel width, > 0.
    public let width: Int
    /// Pixel height, > 0.
    public let height: Int
    /// File size in bytes, > 0.
    public let byteCount: Int
    /// SHA-256 of the file's bytes, 64 lowercase hex characters.
    public let sha256: String
    /// When the photo was stored (millisecond precision).
    public let createdAt: Date
}

/// Why a photo could not be stored or read. Messages never contain paths or content.
public enum PhotoStoreError: CairnError, Equatable {
    /// The bytes were empty.
    case emptyFile
    /// Width or height was not positive.
    case invalidDimensions
    /// The purpose was empty.
    case missingPurpose
    /// The bytes read back after writing differ from those written (disk or file-system fault).
    case readBackMismatch
    /// No photo has this identifier.
    case notFound
    /// The row exists but its file is missing or unreadable.
    case fileUnavailable(String)
    /// A file step (write, sync, rename) failed.
    case fileOperationFailed(String)
    /// The file is there but is not this photo: an encrypted file altered, cut short or taken from another photo or
    /// vault, a plain file whose bytes differ from the digest its row keeps, or an encrypted file in a vault without
    /// its key.
    case fileDamaged(String)
    /// `write(_:...in:)` was called with a connection outside a `write { }` transaction.
    case notInWriteTransaction

    /// Plain English for the person.
    public var userMessage: String {
        switch self {
        case .emptyFile: return "The photo file is empty."
        case .invalidDimensions: return "The photo has no width or height."
        case .missingPurpose, .notInWriteTransaction: return "The photo could not be saved. Nothing was changed."
        case .readBackMismatch:
            return "The photo could not be saved: the disk returned different bytes than were written. Nothing was changed."
        case .notFound: return "That photo is not in the journal."
        case .fileUnavailable: return "The photo's file is missing from the data folder."
        case .fileOperationFailed: return "The photo could not be written to the data folder. Nothing was changed."
        case .fileDamaged:
            return "The photo's file in the data folder is damaged, incomplete or was altered, so it was not read. Nothing was changed."
        }
    }

    /// For developers: the case and the failed step (never a path).
    public var description: String {
        switch self {
        case .fileUnavailable(let why): return "PhotoStoreError.fileUnavailable: \(why)"
        case .fileOperationFailed(let why): return "PhotoStoreError.fileOperationFailed: \(why)"
        case .fileDamaged(let why): return "PhotoStoreError.fileDamaged: \(why)"
        default: return "PhotoStoreError.\(caseName)"
        }
    }

    private var caseName: String {
        switch self {
        case .emptyFile: return "emptyFile"
        case .invalidDimensions: return "invalidDimensions"
        case .missingPurpose: return "missingPurpose"
        case .readBackMismatch: return "readBackMismatch"
        case .notFound: return "notFound"
        case .notInWriteTransaction: return "notInWriteTransaction"
        case .fileUnavailable: return "fileUnavailable"
        case .fileOperationFailed: return "fileOperationFailed"
        case .fileDamaged: return "fileDamaged"
        }
    }
}

/// The steps of a photo write, for fault injection in tests.
enum PhotoWriteStage: String, Sendable, CaseIterable {
    /// The temp file is written and fsynced.
    case tempWritten
    /// The read-back bytes passed `verify`.
    case verified
    /// The temp file is renamed to its final name and the directory fsynced.
    case renamed
    /// The `photos` row is inserted (the transaction is not committed yet).
    case rowInserted
}

/// Photo files in the vault and their `photos` rows, kept in step.
///
/// In a locked vault (its database opened with the vault key) every file is encrypted (`EncryptedPhoto`,
/// docs/ENCRYPTION.md "Photo files") and decrypted in memory when read: no decrypted copy is written. A row's
/// `byte_count` and `sha256` describe the photo itself (the decrypted bytes), whatever form its file has.
///
/// A write goes: temp file `photos/.tmp-<random>` written and fsynced, read back (decrypted) and verified, renamed to
/// `photos/<2 hex>/<id>.<ext>`, directory fsynced, row inserted in the caller's write transaction. Any
/// failure removes the file and rolls the row back; a crash leaves at worst an unreferenced file, which
/// `sweep()` removes. File steps run while the write transaction (SQLite's write lock) is held, so a sweep
/// (which also holds it) never sees another process's half-finished write.
public struct PhotoFileStore: Sendable {
    /// The vault the files live in.
    public let vault: Vault
    /// The vault's database.
    public let database: Database
    private let clock: any Clock
    let faultInjection: (@Sendable (PhotoWriteStage) throws -> Void)?
    private let form = FormCache()

    /// Creates a store over `vault` and its open `database`.
    public init(vault: Vault, database: Database, clock: any Clock = SystemClock()) {
        self.init(vault: vault, database: database, clock: clock, faultInjection: nil)
    }

    init(
        vault: Vault, database: Database, clock: any Clock,
        faultInjection: (@Sendable (PhotoWriteStage) throws -> Void)?
    ) {
        self.vault = vault
        self.database = database
        self.clock = clock
        self.faultInjection = faultInjection
    }

    /// Stores a photo in its own write transaction. See `write(_:purpose:mediaType:width:height:in:verify:)`.
    @discardableResult
    public func write(
        _ bytes: Data, purpose: String, mediaType: PhotoMediaType, width: Int, height: Int,
        verify: (Data) throws -> Void
    ) throws -> StoredPhoto {
        try database.write { db in
            try write(bytes, purpose: purpose, mediaType: mediaType, width: width, height: height, in: db, verify: verify)
        }
    }

    /// Stores a photo inside the caller's write transaction, so the caller's rows and the `photos` row
    /// commit together. `verify` receives the bytes READ BACK from the fsynced temp file (pass the metadata
    /// inspector); whatever it throws is rethrown unchanged. On any failure the file is removed and the
    /// row is rolled back (to a savepoint, so the caller's transaction stays usable); if the caller's
    /// transaction later rolls back, the file is removed too.
    @discardableResult
    public func write(
        _ bytes: Data, purpose: String, mediaType: PhotoMediaType, width: Int, height: Int,
        in db: Connection, verify: (Data) throws -> Void
    ) throws -> StoredPhoto {
        guard db.isInWriteTransaction else { throw PhotoStoreError.notInWriteTransaction }
        guard !bytes.isEmpty else { throw PhotoStoreError.emptyFile }
        guard width > 0, height > 0 else { throw PhotoStoreError.invalidDimensions }
        guard !purpose.isEmpty else { throw PhotoStoreError.missingPurpose }

        let id = PhotoID.random()
        let folder = String(id.rawValue.prefix(2))
        let relativePath = "photos/\(folder)/\(id.rawValue).\(mediaType.fileExtension)"
        let finalPath = vault.directory.appendingPathComponent(relativePath).path
        let tempPath = vault.photosDirectory.appendingPathComponent(".tmp-\(UUID().uuidString.lowercased())").path
        let photo = StoredPhoto(
            id: id, relativePath: relativePath, purpose: purpose, mediaType: mediaType,
            width: width, height: height, byteCount: bytes.count,
            sha256: SHA256.hexDigest(bytes), createdAt: millisecondPrecision(clock.now()))

        let form = try fileForm()
        try db.execute("SAVEPOINT photo_write")
        var intent: TemporaryArtefact?
        do {
            do {
                try FileModes.writeNewFile(try form.file(holding: bytes, id: id), atPath: tempPath)
                try faultInjection?(.tempWritten)
                let readBack = try? form.photo(inFile: FileModes.readFile(atPath: tempPath), id: id, sha256: photo.sha256)
                guard let readBack, readBack == bytes else { throw PhotoStoreError.readBackMismatch }
                try verify(readBack)
                try faultInjection?(.verified)
                let folderPath = vault.photosDirectory.appendingPathComponent(folder).path
                try FileModes.ensurePrivateDirectory(atPath: folderPath)
                // Named before the rename: a crash before the commit leaves a file the sweep knows it may remove.
                intent = try artefacts.register(finalPath, kind: .photoWrite)
                try FileModes.check(rename(tempPath, finalPath), "rename photo file")
                try FileModes.syncDirectory(atPath: folderPath)
                try FileModes.syncDirectory(atPath: vault.photosDirectory.path)
                try faultInjection?(.renamed)
            } catch let failure as FileModes.SystemCallFailure {
                throw PhotoStoreError.fileOperationFailed(failure.description)
            }
            let written = intent
            db.onRollback { written?.finish(removing: true) }
            db.afterCommit { written?.finish(removing: false) }
            try db.execute(
                """
                INSERT INTO photos (id, relative_path, purpose, media_type, width, height, byte_count, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id.rawValue, relativePath, purpose, mediaType.rawValue, width, height, bytes.count,
                photo.sha256, Timestamp.string(from: photo.createdAt))
            try faultInjection?(.rowInserted)
            try db.execute("RELEASE photo_write")
        } catch {
            try? db.execute("ROLLBACK TO photo_write")
            try? db.execute("RELEASE photo_write")
            try? FileModes.removeFile(atPath: tempPath)
            try? FileModes.removeFile(atPath: finalPath)
            intent?.finish(removing: true)
            throw error
        }
        return photo
    }

    /// The photo with this identifier, or nil.
    public func photo(_ id: PhotoID) throws -> StoredPhoto? {
        try database.read { try photo(id, in: $0) }
    }

    /// The photo with this identifier, read inside the caller's transaction, or nil.
    public func photo(_ id: PhotoID, in db: Connection) throws -> StoredPhoto? {
        try db.queryFirst("SELECT * FROM photos WHERE id = ?", id.rawValue).map(Self.storedPhoto)
    }

    /// Every photo with this purpose, oldest first.
    public func photos(purpose: String) throws -> [StoredPhoto] {
        try database.read { db in
            try db.query("SELECT * FROM photos WHERE purpose = ? ORDER BY created_at, id", purpose).map(Self.storedPhoto)
        }
    }

    /// The absolute location of a photo's file as stored: encrypted in a locked vault, so only a plain vault's
    /// file is a photo a library can read from its path (use `data(for:)`). Throws `notFound`.
    public func fileURL(for id: PhotoID) throws -> URL {
        guard let photo = try photo(id) else { throw PhotoStoreError.notFound }
        return vault.directory.appendingPathComponent(photo.relativePath)
    }

    /// The photo's bytes (decrypted in memory in a locked vault). Throws `notFound` for an unknown ID,
    /// `fileUnavailable` when the file is gone and `fileDamaged` when it is not this photo.
    public func data(for id: PhotoID) throws -> Data {
        guard let photo = try photo(id) else { throw PhotoStoreError.notFound }
        return try data(of: photo)
    }

    /// `data(for:)` through the row the caller's transaction sees.
    public func data(for id: PhotoID, in db: Connection) throws -> Data {
        guard let photo = try photo(id, in: db) else { throw PhotoStoreError.notFound }
        return try data(of: photo)
    }

    private func data(of photo: StoredPhoto) throws -> Data {
        let file: Data
        do {
            file = try FileModes.readFile(atPath: vault.directory.appendingPathComponent(photo.relativePath).path)
        } catch let failure as FileModes.SystemCallFailure {
            throw PhotoStoreError.fileUnavailable(failure.description)
        }
        return try fileForm().photo(inFile: file, id: photo.id, sha256: photo.sha256)
    }

    /// What `check()` found wrong with one photo's file.
    public enum FileProblem: String, Sendable, Encodable {
        /// The file is not there.
        case missing
        /// The file is there but is not the photo its row describes (it does not decrypt, or its digest differs).
        case damaged
    }

    /// What `check()` found: every photo read whole (decrypted in a locked vault) and compared with its digest, and
    /// the files under `photos/` no row names.
    public struct CheckResult: Sendable {
        public var checked = 0
        public var problems: [(photo: StoredPhoto, problem: FileProblem)] = []
        /// Paths relative to the vault of the files no row names (Cairn's own temporary files aside).
        public var unnamed: [String] = []
    }

    /// Reads every photo's file as `cairn doctor` does (like `restic check --read-data`): decrypted where the vault
    /// is locked, and its SHA-256 compared with its row's. Changes nothing.
    public func check() throws -> CheckResult {
        let photos = try database.read { db in try db.query("SELECT * FROM photos ORDER BY relative_path").map(Self.storedPhoto) }
        var result = CheckResult()
        for photo in photos {
            result.checked += 1
            do {
                let bytes = try data(of: photo)
                if SHA256.hexDigest(bytes) != photo.sha256 { result.problems.append((photo, .damaged)) }
            } catch PhotoStoreError.fileUnavailable(_) {
                result.problems.append((photo, .missing))
            } catch {
                result.problems.append((photo, .damaged))
            }
        }
        let named = Set(photos.map(\.relativePath))
        try Self.forEachFile(under: vault.photosDirectory.path) { relative, _ in
            let path = "photos/" + relative
            if !named.contains(path), !(relative as NSString).lastPathComponent.hasPrefix(".tmp-") { result.unnamed.append(path) }
        }
        return result
    }

    /// The form this vault's photo files take: encrypted under the database's vault key, or plain without one.
    /// Worked out at the first photo and kept: the database's key never changes, nor the vault identifier the
    /// header holds, so the header is not read again for every photo.
    func fileForm() throws -> PhotoFileForm { try form.value { try PhotoFileForm(vault: vault, key: database.vaultKey) } }

    /// Deletes a photo's row and then its file, in its own write transaction. Throws `notFound`.
    public func delete(_ id: PhotoID) throws {
        try database.write { try delete(id, in: $0) }
    }

    /// Deletes a photo's row inside the caller's write transaction; the file is removed after the commit
    /// (a crash in between leaves an unreferenced file for `sweep()`). A row a journal still references
    /// fails with `DatabaseError.constraint(.foreignKey, _)`. Throws `notFound`.
    public func delete(_ id: PhotoID, in db: Connection) throws {
        guard db.isInWriteTransaction else { throw PhotoStoreError.notInWriteTransaction }
        guard let photo = try photo(id, in: db) else { throw PhotoStoreError.notFound }
        let path = vault.directory.appendingPathComponent(photo.relativePath).path
        // Named before the row goes: a crash between the commit and the unlink leaves a file the sweep may remove.
        let intent = try artefacts.register(path, kind: .photoDeletion)
        do {
            try db.execute("DELETE FROM photos WHERE id = ?", id.rawValue)
        } catch {
            intent.finish(removing: false)
            throw error
        }
        db.afterCommit { intent.finish(removing: true) }
        db.onRollback { intent.finish(removing: false) }
    }

    /// The vault's registry of temporary artefacts.
    var artefacts: TemporaryArtefacts { TemporaryArtefacts(vault: vault) }

    /// What a sweep did with the files under `photos/` that no `photos` row names.
    public struct SweepResult: Sendable, Equatable {
        /// Files removed: Cairn's own temporary files, and files of a write or a deletion a crash cut off.
        public var removed = 0
        /// Files no row names that Cairn cannot account for, moved to `lost+found` (never deleted).
        public var keptAside = 0

        public init(removed: Int = 0, keptAside: Int = 0) {
            self.removed = removed
            self.keptAside = keptAside
        }
    }

    /// Tidies `photos/` under the write lock (so it never races a write): a file no `photos` row names is removed
    /// only when Cairn itself named it as temporary (`.tmp-…`, written and never renamed) or as a photo whose write
    /// or deletion a crash cut off (`TemporaryArtefacts`, kinds `photoWrite` and `photoDeletion`, whose owner is
    /// gone). Any other such file is moved to `lost+found/<stamp>/photos/…` in the vault (`Vault.lostAndFoundURL`),
    /// never deleted: a database replaced by another vault's, or restored from an older backup, must not cost a
    /// photo. In a locked vault a plain file is sealed once moved, so nothing is left readable.
    @discardableResult
    public func sweep() throws -> SweepResult {
        try database.write { db in
            let referenced = Set(try db.query("SELECT relative_path FROM photos").map { try $0.get("relative_path", as: String.self) })
            let prefix = vault.directory.path + "/"
            // A crash cut these off: a write whose row committed keeps its file; the others go.
            let cutOff = artefacts.removeAbandoned([.photoWrite, .photoDeletion]) { entry in
                entry.path.hasPrefix(prefix) && referenced.contains(String(entry.path.dropFirst(prefix.count)))
            }
            var result = SweepResult()
            result.removed = cutOff.filter { !referenced.contains(String($0.path.dropFirst(prefix.count))) }.count
            let stamp = DateText.string(clock.now(), .fileStamp, in: clock.timeZone)
            try Self.forEachFile(under: vault.photosDirectory.path) { relative, path in
                guard !referenced.contains("photos/" + relative) else { return }
                do {
                    if (relative as NSString).lastPathComponent.hasPrefix(".tmp-") {
                        try FileModes.removeFile(atPath: path)
                        result.removed += 1
                    } else {
                        try keepAside(path, relative: relative, stamp: stamp)
                        result.keptAside += 1
                    }
                } catch let failure as FileModes.SystemCallFailure {
                    throw PhotoStoreError.fileOperationFailed(failure.description)
                }
            }
            // Under a lock, a plain file kept aside is sealed like the vault's photos: nothing is left readable.
            if result.keptAside > 0, let key = database.vaultKey { try vault.convertLostAndFound(readingWith: key, to: key) }
            return result
        }
    }

    /// Moves a file no row names to `lost+found/<stamp>/photos/<relative>`.
    private func keepAside(_ path: String, relative: String, stamp: String) throws {
        let target = vault.lostAndFoundURL.appendingPathComponent(stamp).appendingPathComponent("photos")
            .appendingPathComponent(relative).path
        try FileModes.ensurePrivateDirectory(atPath: (target as NSString).deletingLastPathComponent)
        guard access(target, F_OK) != 0 else { throw FileModes.SystemCallFailure(step: "keep a photo aside", code: EEXIST) }
        try FileModes.check(rename(path, target), "keep a photo aside")
        try FileModes.syncDirectory(atPath: (target as NSString).deletingLastPathComponent)
    }

    /// Calls `body` with the path relative to `directory` and the full path of every entry under it, at any depth,
    /// that is not a directory (symbolic links are not followed). readdir with each entry's own type, so nothing is
    /// stat'ed but an entry of unknown type: Foundation's enumerator made the sweep of a vault of 1,300 photo files
    /// 9 ms of every command that opens it to write.
    public static func forEachFile(
        under directory: String, relative: String = "",
        _ body: (_ relative: String, _ path: String) throws -> Void
    ) throws {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let path = directory + "/" + name
            let inside = relative.isEmpty ? name : relative + "/" + name
            var isDirectory = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            }
            if isDirectory {
                try forEachFile(under: path, relative: inside, body)
            } else {
                try body(inside, path)
            }
        }
    }

    private func millisecondPrecision(_ date: Date) -> Date {
        Timestamp.date(from: Timestamp.string(from: date)) ?? date
    }

    static func storedPhoto(_ row: Row) throws -> StoredPhoto {
        guard let mediaType = PhotoMediaType(rawValue: try row.get("media_type")),
            let createdAt = Timestamp.date(from: try row.get("created_at"))
        else {
            throw DatabaseError.misuse("photos row holds an unknown media type or timestamp")
        }
        return StoredPhoto(
            id: PhotoID(try row.get("id")), relativePath: try row.get("relative_path"),
            purpose: try row.get("purpose"), mediaType: mediaType, width: try row.get("width"),
            height: try row.get("height"), byteCount: try row.get("byte_count"),
            sha256: try row.get("sha256"), createdAt: createdAt)
    }
}

/// `PhotoFileStore.fileForm()`, once worked out (shared by the store's copies).
private final class FormCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cached: PhotoFileForm?

    func value(_ make: () throws -> PhotoFileForm) throws -> PhotoFileForm {
        try lock.withLock {
            if let cached { return cached }
            let made = try make()
            cached = made
            return made
        }
    }
}

/// What a backup or a lock change needs of every photo: its identifier, its file's path in the vault and the
/// SHA-256 of the photo, in path order.
struct PhotoFileRow {
    let id: PhotoID
    let path: String
    let sha256: String

    static func all(in db: Connection) throws -> [PhotoFileRow] {
        try db.query("SELECT id, relative_path, sha256 FROM photos ORDER BY relative_path").map {
            PhotoFileRow(id: PhotoID(try $0.get("id")), path: try $0.get("relative_path"), sha256: try $0.get("sha256"))
        }
    }
}

/// The form of a vault's photo files (docs/ENCRYPTION.md, "Photo files"): sealed under the vault key
/// (`EncryptedPhoto`) while the lock is on, the photo's own bytes otherwise.
struct PhotoFileForm {
    /// The vault key, nil for plain files.
    let key: SecretKey?
    private let vaultID: [UInt8]

    /// The vault identifier bound into each file is the one the vault header holds (authenticated by its key
    /// wrap), so a lost or edited `vault.id` never makes the photos unreadable; `vault.id` only for a vault whose
    /// database has a key but no header (tests).
    init(vault: Vault, key: SecretKey?) throws {
        self.key = key
        vaultID = key == nil ? [] : try vault.header()?.vaultID ?? vault.identifier()
    }

    /// What the file of photo `id` holds in this form.
    func file(holding photo: Data, id: PhotoID) throws -> Data {
        guard let key else { return photo }
        return try EncryptedPhoto.seal(photo, photoID: id.rawValue, vaultID: vaultID, vaultKey: key)
    }

    /// The photo `id` (whose row keeps `sha256`) in a file `file` read from the vault. With the key, an encrypted
    /// file must open; a plain one is taken only when its SHA-256 is the row's (a lock change not finished yet
    /// leaves plain files in a locked vault, and the row, in the encrypted database, vouches for them). Without
    /// the key a plain file is taken as it is, as in a vault that never had a lock. Throws `fileDamaged`.
    func photo(inFile file: Data, id: PhotoID, sha256: String) throws -> Data {
        guard EncryptedPhoto.isEncrypted(file) else {
            if key != nil, SHA256.hexDigest(file) != sha256 {
                throw PhotoStoreError.fileDamaged("a plain file whose SHA-256 is not its row's")
            }
            return file
        }
        guard let key else { throw PhotoStoreError.fileDamaged("an encrypted file in a vault without its key") }
        do {
            return try EncryptedPhoto.open(file, photoID: id.rawValue, vaultID: vaultID, vaultKey: key)
        } catch let error as EncryptionError {
            throw PhotoStoreError.fileDamaged("it does not open (\(error))")
        }
    }
}

extension PhotoStoreError {
    public var errorKind: ErrorKind {
        switch self {
        case .notFound: return .notFound
        default: return .failure
        }
    }
}
