import CairnCore
import Encryption
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a backup could not be made, checked or restored. Messages name no path and no content.
public enum BackupError: CairnError, Equatable {
    /// The file is a Cairn encrypted file, but not a backup.
    case notABackup
    /// The stream is authentic, but what it holds is not a backup Cairn can read.
    case malformed
    /// A file's size or SHA-256 differs from its manifest entry, or a file is missing or extra.
    case digestMismatch
    /// The folder to restore into exists and holds something.
    case restoreTargetNotEmpty
    /// The restored database failed SQLite's integrity check.
    case databaseDamaged
    /// A photo the database names is missing from the data folder.
    case photoUnavailable
    /// A photo's file is there but is not the photo its row describes (damaged, altered).
    case photoDamaged
    /// A photo's file changed while the backup read it.
    case photoChanged
    /// A file step (create, write, sync, rename) failed.
    case fileOperationFailed(String)

    public var userMessage: String {
        switch self {
        case .notABackup: return "This Cairn file is not a backup."
        case .malformed: return "The backup's contents are not in a form Cairn can read, so nothing was restored."
        case .digestMismatch:
            return "The backup does not match its own list of contents (a file's SHA-256 differs), so it cannot be trusted. Nothing was changed."
        case .restoreTargetNotEmpty:
            return "The folder to restore into is not empty. Restore into a new or empty folder; nothing was changed."
        case .databaseDamaged: return "The database in the backup failed SQLite's integrity check, so nothing was restored."
        case .photoUnavailable:
            return
                "A photo the journal names is missing from the data folder, so no backup was written. Run cairn doctor: it lists each missing or damaged photo."
        case .photoDamaged:
            return
                "A photo file in the data folder is damaged (it is not the photo the journal recorded), so no backup was written. Run cairn doctor: it lists each missing or damaged photo."
        case .photoChanged:
            return "A photo file changed while the backup read it, so no backup was written. Try again."
        case .fileOperationFailed: return "A file could not be read or written. Nothing was changed."
        }
    }

    public var description: String {
        if case .fileOperationFailed(let why) = self { return "BackupError.fileOperationFailed: \(why)" }
        return "BackupError: \(userMessage)"
    }
}

/// What a backup holds, as its manifest says (after every digest was checked).
public struct BackupSummary: Sendable, Equatable {
    /// The vault the backup was made of, in hex.
    public let vaultID: String
    /// When it was made (ISO 8601, as written).
    public let createdAt: String
    /// How many photo files it holds.
    public let photoCount: Int
    /// The bytes of every file in it (the database and the photos), before encryption.
    public let contentBytes: Int64
}

/// A whole vault as one encrypted file (docs/ENCRYPTION.md, "Backup content"): a consistent snapshot of the
/// database and every photo file it names, with a manifest of SHA-256 digests, in Cairn's encrypted-file format.
/// Written and read in one pass, in constant memory.
public enum VaultBackup {
    static let magic: [UInt8] = Array("CAIRNBAK".utf8)
    static let version: UInt8 = 1
    static let databaseName = "cairn.sqlite"
    static let manifestName = "manifest.json"
    private static let fileEntry: UInt8 = 1
    private static let manifestEntry: UInt8 = 2
    /// A manifest larger than this is not one Cairn wrote (a million photos take about 150 MB... far more than
    /// any journal); the cap keeps a crafted backup from exhausting memory.
    private static let manifestLimit: UInt64 = 256 << 20

    struct Manifest: Codable, Equatable {
        struct File: Codable, Equatable {
            let path: String
            let bytes: UInt64
            let sha256: String
        }
        let format: Int
        let vault: String
        let created: String
        let files: [File]
    }

    // MARK: writing

    /// Writes a backup of `vault` to `sink`: snapshots the database (consistent while other processes use it),
    /// then streams it and every photo the snapshot names. Throws `photoUnavailable` when a named photo is
    /// missing and `photoDamaged` when it is not the photo its row describes; the snapshot file is removed
    /// whatever happens.
    ///
    /// Decision: a backup holds the photos themselves, whatever the vault's lock. A locked vault's photo files are
    /// decrypted in memory, one at a time, straight into the backup's own encrypted stream (as its database is
    /// copied page by page out of its cipher), so a backup reads the same for both kinds of vault and restores a
    /// vault whose lock is off, whole and consistent; the person turns the lock on again there.
    public static func write(
        vault: Vault, database: Database, passphrase: Passphrase, createdAt: Date,
        keyDerivation: KeyDerivation = .standard(), to sink: @escaping ByteSink
    ) throws -> BackupSummary {
        let vaultID = try vault.identifier()
        let snapshotPath = vault.directory.appendingPathComponent(".backup-\(UUID().uuidString.lowercased()).sqlite").path
        // Registered before it is made: a kill while it is written leaves an entry the next opener acts on.
        let registered = try TemporaryArtefacts(vault: vault).register(snapshotPath, kind: .backupSnapshot)
        defer { registered.finish(removing: true) }
        let (photos, pages) = try database.snapshot(to: snapshotPath) { try PhotoFileRow.all(in: $0) }
        CrashPoint.reached("backup-snapshot-written")
        // Keep the snapshot open and unlink it at once: a kill -9 from here on leaves no copy of the data behind.
        let snapshot = open(snapshotPath, O_RDONLY | O_CLOEXEC)
        unlink(snapshotPath)
        registered.finish(removing: true)
        guard snapshot >= 0 else { throw BackupError.fileOperationFailed("open snapshot: errno \(errno)") }
        defer { close(snapshot) }

        let form = try PhotoFileForm(vault: vault, key: database.vaultKey)
        let writer = try EncryptingWriter(
            passphrase: passphrase, kind: .vaultBackup, vaultID: vaultID,
            keyDerivation: keyDerivation, sink: sink)
        try (magic + [version]).withUnsafeBytes { try writer.write($0) }
        var files: [Manifest.File] = []
        var info = stat()
        guard fstat(snapshot, &info) == 0 else { throw BackupError.fileOperationFailed("stat: errno \(errno)") }
        files.append(
            try writeEntry(
                path: databaseName, size: UInt64(info.st_size), to: writer,
                from: pages.plainBytes(from: source(snapshot, step: "read"))))
        for photo in photos {
            guard isValidPath(photo.path),
                let file = try? FileModes.readFile(atPath: vault.directory.appendingPathComponent(photo.path).path)
            else {
                throw BackupError.photoUnavailable
            }
            guard let bytes = try? form.photo(inFile: file, id: photo.id, sha256: photo.sha256) else { throw BackupError.photoDamaged }
            let entry = try writeEntry(path: photo.path, size: UInt64(bytes.count), to: writer, from: byteSource(bytes))
            // A plain file is taken as it is; its digest, computed as it streams, must be the row's.
            guard entry.sha256 == photo.sha256 else { throw BackupError.photoDamaged }
            files.append(entry)
        }
        let manifest = Manifest(format: 1, vault: Hex.encode(vaultID), created: Timestamp.string(from: createdAt), files: files)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(manifest)
        try (entryHeader(kind: manifestEntry, path: manifestName, size: UInt64(json.count))).withUnsafeBytes { try writer.write($0) }
        try writer.write(json)
        try writer.finish()
        return summary(of: manifest)
    }

    /// Writes one file entry of `size` bytes read from `input`; a file that turns out longer or shorter (changed
    /// while it was read) is `photoChanged`.
    private static func writeEntry(
        path: String, size: UInt64, to writer: EncryptingWriter,
        from input: ByteSource
    ) throws -> Manifest.File {
        try entryHeader(kind: fileEntry, path: path, size: size).withUnsafeBytes { try writer.write($0) }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: encryptedChunkByteCount)
        var total: UInt64 = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { try input($0) }
            if n == 0 { break }
            total += UInt64(n)
            guard total <= size else { throw BackupError.photoChanged }
            try buffer.withUnsafeBytes { raw in
                let piece = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hasher.update(piece)
                try writer.write(piece)
            }
        }
        guard total == size else { throw BackupError.photoChanged }
        return Manifest.File(path: path, bytes: size, sha256: hasher.finalizeHex())
    }

    private static func entryHeader(kind: UInt8, path: String, size: UInt64) -> [UInt8] {
        let name = Array(path.utf8)
        return [kind, UInt8(name.count >> 8), UInt8(name.count & 0xff)] + name + withUnsafeBytes(of: size.bigEndian, Array.init)
    }

    /// Whether `path` is one a backup may hold: `cairn.sqlite`, or `photos/<2 hex>/<name>` in `a-z 0-9 . - _`.
    static func isValidPath(_ path: String) -> Bool {
        if path == databaseName { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-_")
        guard parts.count == 3, parts[0] == "photos", parts[1].count == 2, parts[1].allSatisfy(\.isHexDigit),
            parts[1] == parts[1].lowercased(), !parts[2].isEmpty, !parts[2].hasPrefix("."),
            parts[2].allSatisfy(allowed.contains)
        else { return false }
        return true
    }

    // MARK: reading

    /// Reads the header of the backup at `path` without a passphrase (what it is and whose). Throws
    /// `EncryptionError` for a file that is not Cairn's and `notABackup` for another kind of Cairn file.
    public static func header(ofFileAt path: String) throws -> EncryptedFileHeader {
        let fd = try openForReading(path)
        defer { close(fd) }
        let header = try DecryptingReader.readHeader(from: source(fd))
        guard header.kind == EncryptedFileHeader.Kind.vaultBackup.rawValue else { throw BackupError.notABackup }
        return header
    }

    /// Decrypts the whole backup at `path` and checks every file against the manifest. Throws `EncryptionError`
    /// (wrong passphrase, damaged, truncated...) or `BackupError`.
    public static func verify(fileAt path: String, passphrase: Passphrase) throws -> BackupSummary {
        try read(fileAt: path, passphrase: passphrase) { _ in nil }
    }

    /// Restores the backup at `path` into `directory`, which must be missing or empty: everything is written to a
    /// new folder beside it, checked (every digest, then SQLite's integrity check), and only then renamed into
    /// place. On any failure the new folder is removed and `directory` is as it was.
    ///
    /// Decisions (issue 36): the staging folder, `.cairn-restore-<uuid>` beside the target, is Cairn's by its name
    /// and is locked (`flock` on the folder itself) by the restoring process for as long as it works; it holds a
    /// `.restore-target` file naming the target. A restore killed half-way leaves it unlocked: the next restore beside
    /// it, or the next command that opens the target's vault (`Vault.removeAbandonedArtefacts`), removes it. Folders
    /// above the target that are missing are made (0700); an existing one's mode is never touched.
    public static func restore(fileAt path: String, passphrase: Passphrase, into directory: URL) throws -> BackupSummary {
        try checkRestoreTarget(directory)
        let target = directory.standardizedFileURL.path
        let parent = (target as NSString).deletingLastPathComponent
        let staging = (parent as NSString).appendingPathComponent(stagingPrefix + UUID().uuidString.lowercased())
        var stagingLock: Int32 = -1
        defer { if stagingLock >= 0 { close(stagingLock) } }
        do {
            if access(parent, F_OK) != 0 { try FileModes.ensurePrivateDirectory(atPath: parent) }
            _ = removeAbandonedStaging(beside: directory, anyTarget: true)
            try FileModes.check(mkdir(staging, FileModes.privateDirectory), "create restore folder")
            stagingLock = open(staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try FileModes.check(stagingLock, "open restore folder")
            try FileModes.check(flock(stagingLock, LOCK_EX | LOCK_NB), "lock restore folder")
            try FileModes.writeNewFile(
                Data((target as NSString).lastPathComponent.utf8),
                atPath: (staging as NSString).appendingPathComponent(stagingTargetName))
            try FileModes.ensurePrivateDirectory(atPath: staging + "/photos")
        } catch let failure as FileModes.SystemCallFailure {
            try? FileManager.default.removeItem(atPath: staging)
            throw BackupError.fileOperationFailed(failure.description)
        }
        CrashPoint.reached("restore-staging-made")
        do {
            var open: Int32 = -1
            defer { if open >= 0 { close(open) } }
            let summary = try read(fileAt: path, passphrase: passphrase) { relative in
                if open >= 0 {
                    close(open)
                    open = -1
                }
                let file = (staging as NSString).appendingPathComponent(relative)
                try FileModes.ensurePrivateDirectory(atPath: (file as NSString).deletingLastPathComponent)
                open = Glibc.open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FileModes.privateFile)
                try FileModes.check(open, "create restored file")
                let fd = open
                return { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw FileModes.SystemCallFailure(step: "write restored file", code: errno)
                        }
                        offset += n
                    }
                }
            } finishFile: {
                try FileModes.check(fsync(open), "sync restored file")
                close(open)
                open = -1
                CrashPoint.reached("restore-file-written")
            }
            try FileModes.writeNewFile(
                Data((summary.vaultID + "\n").utf8),
                atPath: (staging as NSString).appendingPathComponent(Vault.identifierFileName))
            guard integrityCheckPasses(databaseAt: (staging as NSString).appendingPathComponent(databaseName)) else {
                throw BackupError.databaseDamaged
            }
            try FileModes.removeFile(atPath: (staging as NSString).appendingPathComponent(stagingTargetName))
            try FileModes.syncDirectory(atPath: staging)
            CrashPoint.reached("restore-before-rename")
            if FileManager.default.fileExists(atPath: target) { try FileModes.check(rmdir(target), "remove empty target") }
            try FileModes.check(rename(staging, target), "move restored folder into place")
            try FileModes.syncDirectory(atPath: parent)
            return summary
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            if let failure = error as? FileModes.SystemCallFailure { throw BackupError.fileOperationFailed(failure.description) }
            throw error
        }
    }

    /// The name a restore's staging folder starts with.
    static let stagingPrefix = ".cairn-restore-"
    /// The file in a staging folder that names its target (the target folder's own name).
    static let stagingTargetName = ".restore-target"

    /// Removes the staging folders beside `directory` that a killed restore left: named `.cairn-restore-…`, their
    /// lock free (the restoring process is gone), and naming `directory` as their target (`anyTarget`: any, and
    /// those that name none). Returns how many it removed.
    @discardableResult
    static func removeAbandonedStaging(beside directory: URL, anyTarget: Bool = false) -> Int {
        let target = directory.standardizedFileURL.path
        let parent = (target as NSString).deletingLastPathComponent
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(stagingPrefix) {
            let staging = (parent as NSString).appendingPathComponent(name)
            let fd = open(staging, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            let named = try? FileModes.readFile(atPath: (staging as NSString).appendingPathComponent(stagingTargetName))
            let matches = named.map { String(decoding: $0, as: UTF8.self) == (target as NSString).lastPathComponent } ?? false
            guard matches || anyTarget else { continue }
            if (try? FileManager.default.removeItem(atPath: staging)) != nil { removed += 1 }
        }
        return removed
    }

    /// Throws `restoreTargetNotEmpty` unless `directory` is missing or an empty folder.
    public static func checkRestoreTarget(_ directory: URL) throws {
        let target = directory.standardizedFileURL.path
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: target) {
            guard entries.isEmpty else { throw BackupError.restoreTargetNotEmpty }
        } else if FileManager.default.fileExists(atPath: target) {
            throw BackupError.restoreTargetNotEmpty
        }
    }

    /// The one reader: decrypts the backup at `path`, hands each file's bytes to the sink `fileSink` returns for
    /// its path (nil: only hash them), calls `finishFile` after each file it had a sink for, and checks every size
    /// and digest against the manifest, which must come last and list exactly the files read, in order.
    private static func read(
        fileAt path: String, passphrase: Passphrase,
        fileSink: (String) throws -> ByteSink?,
        finishFile: () throws -> Void = {}
    ) throws -> BackupSummary {
        let fd = try openForReading(path)
        defer { close(fd) }
        let input = source(fd)
        let header = try DecryptingReader.readHeader(from: input)
        guard header.kind == EncryptedFileHeader.Kind.vaultBackup.rawValue else { throw BackupError.notABackup }
        let reader = try DecryptingReader(header: header, passphrase: passphrase, source: input)
        guard try reader.read(count: magic.count + 1) == magic + [version] else { throw BackupError.malformed }
        var seen: [Manifest.File] = []
        var buffer = [UInt8](repeating: 0, count: encryptedChunkByteCount)
        while true {
            guard let head = try reader.read(count: 3) else { throw BackupError.malformed }
            let length = Int(head[1]) << 8 | Int(head[2])
            guard let nameBytes = try reader.read(count: length), let sizeBytes = try reader.read(count: 8) else {
                throw BackupError.malformed
            }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let size = sizeBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if head[0] == manifestEntry {
                guard name == manifestName, size <= manifestLimit, let json = try reader.read(count: Int(size)),
                    try reader.isAtEnd(),
                    let manifest = try? JSONDecoder().decode(Manifest.self, from: Data(json))
                else {
                    throw BackupError.malformed
                }
                guard manifest.format == 1, manifest.vault == Hex.encode(header.vaultID) else { throw BackupError.malformed }
                guard manifest.files == seen else { throw BackupError.digestMismatch }
                return summary(of: manifest)
            }
            guard head[0] == fileEntry, isValidPath(name), !seen.contains(where: { $0.path == name }),
                seen.isEmpty == (name == databaseName)
            else { throw BackupError.malformed }
            let sink = try fileSink(name)
            var hasher = SHA256Hasher()
            var remaining = size
            while remaining > 0 {
                let want = Int(min(UInt64(buffer.count), remaining))
                let got = try buffer.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want])) }
                guard got == want else { throw BackupError.malformed }
                try buffer.withUnsafeBytes { raw in
                    let piece = UnsafeRawBufferPointer(rebasing: raw[0..<got])
                    hasher.update(piece)
                    try sink?(piece)
                }
                remaining -= UInt64(got)
            }
            if sink != nil { try finishFile() }
            seen.append(Manifest.File(path: name, bytes: size, sha256: hasher.finalizeHex()))
        }
    }

    private static func summary(of manifest: Manifest) -> BackupSummary {
        BackupSummary(
            vaultID: manifest.vault, createdAt: manifest.created,
            photoCount: manifest.files.count - 1,
            contentBytes: manifest.files.reduce(0) { $0 + Int64($1.bytes) })
    }

    private static func integrityCheckPasses(databaseAt path: String) -> Bool {
        guard let database = try? Database(path: path) else { return false }
        defer {
            database.close()
            for suffix in ["-wal", "-shm"] { try? FileModes.removeFile(atPath: path + suffix) }
        }
        let result: String? = try? database.read { try $0.scalar("PRAGMA integrity_check") }
        return result == "ok"
    }

    private static func openForReading(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BackupError.fileOperationFailed("open backup: errno \(errno)") }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw BackupError.fileOperationFailed("open backup: is a directory")
        }
        return fd
    }

    private static func source(_ fd: Int32, step: String = "read backup") -> ByteSource {
        { buffer in
            while true {
                let n = Glibc.read(fd, buffer.baseAddress!, buffer.count)
                if n >= 0 { return n }
                if errno != EINTR { throw BackupError.fileOperationFailed("\(step): errno \(errno)") }
            }
        }
    }
}

extension BackupError {
    public var errorKind: ErrorKind {
        switch self {
        case .notABackup, .malformed, .digestMismatch, .databaseDamaged: return .refusedInput  // the file given
        case .restoreTargetNotEmpty, .photoChanged: return .conflict
        case .photoUnavailable, .photoDamaged, .fileOperationFailed: return .failure
        }
    }
}
