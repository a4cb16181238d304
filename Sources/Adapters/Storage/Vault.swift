import CairnCore
import Encryption
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why the vault could not be used. Messages never contain the path.
public enum VaultError: CairnError, Equatable {
    /// No data directory could be worked out: no `--data-dir`, `CAIRN_HOME`, `XDG_DATA_HOME` or `HOME`.
    case noHomeDirectory
    /// The data directory (or its photos folder) could not be created or secured.
    case directoryUnusable(String)
    /// A file in the vault could not be written, read or removed.
    case fileOperationFailed(String)
    /// `cairn serve` in another process owns the vault, so this process may not change it (`VaultLock`).
    case servedElsewhere(pid: Int32?)
    /// Other Cairn commands are changing the vault, so it cannot be taken over now.
    case busyElsewhere
    /// The lock is already on (turning it on again would need the passphrase: change it instead).
    case lockAlreadyOn
    /// The lock is off: there is no passphrase to check, change or remove.
    case lockNotOn
    /// The database file is missing (or empty, when `empty`) while the vault holds what a database once named:
    /// `holds` lists it ("photo files", "its lock file", "its identifier"). Nothing is created over them.
    case databaseMissing(empty: Bool, holds: [String])

    /// Plain English for the person.
    public var userMessage: String {
        switch self {
        case .noHomeDirectory:
            return "Cairn cannot tell where to keep its data. Pass --data-dir or set CAIRN_HOME."
        case .directoryUnusable:
            return "Cairn cannot use its data folder. Check that it is a folder you own and can write to."
        case .fileOperationFailed:
            return "Cairn could not read or write a file in its data folder. Nothing was changed."
        case .servedElsewhere(let pid):
            let who = pid.map { "cairn serve (process \($0))" } ?? "cairn serve"
            return
                "\(who) is using this vault, and while it runs only it may change the data. Make the change in its web page, or stop it (Ctrl+C in its window) and try again. Nothing was changed."
        case .busyElsewhere:
            return "Another cairn command is changing this vault. Wait for it to finish and try again. Nothing was changed."
        case .lockAlreadyOn:
            return "The vault's lock is already on. To choose another passphrase, change it. Nothing was changed."
        case .lockNotOn:
            return "The vault's lock is off: it has no passphrase. Nothing was changed."
        case .databaseMissing(let empty, let holds):
            let what = empty ? "is empty" : "is missing"
            return "The vault's database (cairn.sqlite) \(what), but the vault still holds \(CountText.list(holds)): "
                + "Cairn will not start a new, empty journal over them. If you have a backup, restore it into a new "
                + "folder (cairn backup restore FILE --data-dir NEW-FOLDER) and use that folder; if the database file "
                + "was moved, put it back. Nothing was changed."
        }
    }

    /// For developers: the failed step and errno text (never a path).
    public var description: String {
        switch self {
        case .noHomeDirectory: return "VaultError.noHomeDirectory"
        case .directoryUnusable(let why): return "VaultError.directoryUnusable: \(why)"
        case .fileOperationFailed(let why): return "VaultError.fileOperationFailed: \(why)"
        case .servedElsewhere(let pid): return "VaultError.servedElsewhere(pid: \(pid.map(String.init) ?? "unknown"))"
        case .busyElsewhere: return "VaultError.busyElsewhere"
        case .lockAlreadyOn: return "VaultError.lockAlreadyOn"
        case .lockNotOn: return "VaultError.lockNotOn"
        case .databaseMissing(let empty, let holds): return "VaultError.databaseMissing(empty: \(empty), holds: \(holds))"
        }
    }
}

/// The one data directory: the database `cairn.sqlite` and the `photos/` folder. The directory and its
/// folders are mode 0700 and every file in it 0600.
public struct Vault: Sendable, Equatable {
    /// The data directory.
    public let directory: URL

    /// The database file, `<directory>/cairn.sqlite`.
    public var databaseURL: URL { directory.appendingPathComponent("cairn.sqlite") }
    /// The folder holding photo files, `<directory>/photos`.
    public var photosDirectory: URL { directory.appendingPathComponent("photos") }
    /// The label database (public DSLD labels, imported by the person): beside the database, never in backups.
    public var labelDatabaseURL: URL { directory.appendingPathComponent("labels.sqlite") }
    /// What reminders need while the database is locked (see docs/REMINDERS.md), outside the database.
    public var reminderTimetableURL: URL { directory.appendingPathComponent("reminders.timetable") }
    /// Notification buttons pressed while the database was locked, logged at the next unlock.
    public var reminderQueueURL: URL { directory.appendingPathComponent("reminders.queue") }
    /// The lock file that lets one process at a time check reminders (empty: it only carries a `flock`).
    public var reminderLockURL: URL { directory.appendingPathComponent("reminders.lock") }

    /// Where the data directory is, in order of precedence: `dataDir` (the `--data-dir` option), then
    /// `CAIRN_HOME`, then `$XDG_DATA_HOME/cairn`, then `$HOME/.local/share/cairn`. Empty values count as unset.
    /// A relative path is taken relative to the current directory.
    public static func resolveDirectory(dataDir: String?, environment: [String: String]) throws -> URL {
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        let path: String
        if let explicit = nonEmpty(dataDir) {
            path = explicit
        } else if let cairnHome = nonEmpty(environment["CAIRN_HOME"]) {
            path = cairnHome
        } else if let xdg = nonEmpty(environment["XDG_DATA_HOME"]), xdg.hasPrefix("/") {
            // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
            path = (xdg as NSString).appendingPathComponent("cairn")
        } else if let home = nonEmpty(environment["HOME"]) {
            path = (home as NSString).appendingPathComponent(".local/share/cairn")
        } else {
            throw VaultError.noHomeDirectory
        }
        return URL(fileURLWithPath: path).standardizedFileURL
    }

    /// Opens the vault at `directory`, creating it (and `photos/`) with mode 0700. An existing directory
    /// that is readable by others is tightened to 0700; a path that is not a directory is refused.
    public init(directory: URL) throws {
        self.directory = directory.standardizedFileURL
        do {
            try FileModes.ensurePrivateDirectory(atPath: self.directory.path)
            try FileModes.ensurePrivateDirectory(atPath: photosDirectory.path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.directoryUnusable(failure.description)
        }
    }

    /// Opens the vault at the directory `resolveDirectory(dataDir:environment:)` names.
    public init(dataDir: String?, environment: [String: String]) throws {
        try self.init(directory: Self.resolveDirectory(dataDir: dataDir, environment: environment))
    }

    /// The file holding the vault's identifier, `<directory>/vault.id`.
    public static let identifierFileName = "vault.id"

    /// The vault's identifier: 16 random bytes made the first time they are asked for and kept in `vault.id`
    /// (32 hex digits), so a backup can say which vault it is of and `--keep` never removes another vault's
    /// backups. A restored vault keeps the identifier of the vault it was backed up from. Deleting all data
    /// keeps it: it names the folder and says nothing about the person.
    public func identifier() throws -> [UInt8] {
        let path = directory.appendingPathComponent(Self.identifierFileName).path
        func stored() -> [UInt8]? {
            guard let data = try? FileModes.readFile(atPath: path),
                let bytes = Hex.decode(String(decoding: data, as: UTF8.self)), bytes.count == 16
            else { return nil }
            return bytes
        }
        if let existing = stored() { return existing }
        let fresh = SecretKey.randomBytes(16)
        let temp = path + ".\(UUID().uuidString.lowercased()).tmp"
        do {
            try FileModes.writeNewFile(Data((Hex.encode(fresh) + "\n").utf8), atPath: temp)
            // link() refuses an existing name: when two processes race, the first one's identifier stays.
            _ = link(temp, path)
            try FileModes.removeFile(atPath: temp)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
        guard let kept = stored() else { throw VaultError.fileOperationFailed("read vault identifier") }
        return kept
    }

    /// Opens the database and brings it to today's schema (`migrations`, default `CairnSchema.migrations`).
    /// The database's writes go through the vault's `VaultLock` (`owner.lock` in the directory). With `key` (the
    /// vault key) the database is encrypted at rest (`Database.init(path:busyTimeout:vaultLock:key:)`).
    public func openDatabase(
        migrations: [Migration] = CairnSchema.migrations,
        clock: any Clock = SystemClock(), key: SecretKey? = nil
    ) throws -> Database {
        try refuseLostDatabase()
        let database = try Database(path: databaseURL.path, vaultLock: try VaultLock(directory: directory), key: key)
        try Migrator(migrations, clock: clock).migrate(database)
        return database
    }

    /// Where photo files no record names are kept aside (`PhotoFileStore.sweep`): `<vault>/lost+found`.
    public var lostAndFoundURL: URL { directory.appendingPathComponent("lost+found") }

    /// Refuses to open (and so to create) a database when the file is missing or empty but the vault holds what
    /// only a database gives meaning to: photo files, the lock's header, the vault identifier
    /// (`VaultError.databaseMissing`). A crash after a rename without fsync, a full disk or a sync tool can leave
    /// a zero-length file; a new empty journal there would make the next sweep set every photo aside.
    public func refuseLostDatabase() throws {
        var info = stat()
        let exists = stat(databaseURL.path, &info) == 0
        guard !exists || info.st_size == 0 else { return }
        var holds: [String] = []
        if holdsPhotoFiles { holds.append("photo files") }
        if access(headerURL.path, F_OK) == 0 { holds.append("its lock file (vault.header)") }
        if access(directory.appendingPathComponent(Self.identifierFileName).path, F_OK) == 0 { holds.append("its identifier (vault.id)") }
        guard holds.isEmpty else { throw VaultError.databaseMissing(empty: exists, holds: holds) }
    }

    /// Whether any file is under `photos/` (Cairn's own temporary files aside).
    var holdsPhotoFiles: Bool {
        var found = false
        try? PhotoFileStore.forEachFile(under: photosDirectory.path) { relative, _ in
            if !(relative as NSString).lastPathComponent.hasPrefix(".tmp-") { found = true }
        }
        return found
    }

    /// Removes what processes that are gone left behind (issue 36): the artefacts of the registry whose owner is
    /// gone (`TemporaryArtefacts`; photo files are the sweep's, which checks their rows), files an older Cairn
    /// left under names only it gives (a backup's database snapshot, a download) that no entry names, and a
    /// restore's staging folder beside this vault that a killed restore left (`VaultBackup.removeAbandonedStaging`).
    /// Returns how many it removed. Never touches what a running process owns.
    @discardableResult
    public func removeAbandonedArtefacts() -> Int {
        let registry = TemporaryArtefacts(vault: self)
        var removed = registry.removeAbandoned([.backupSnapshot, .partialFile, .download, .healthConnectCopy, .labelDatabaseBuild]).count
        // The folder first, then the entries: a file seen was registered before it was made, so its entry is read.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let named = Set(registry.entries().map(\.path))
        for name in names
        where (name.hasPrefix(".backup-") && name.hasSuffix(".sqlite")) || name.hasPrefix(".download-")
            || (name.hasPrefix(".health-connect-") && name.hasSuffix(".sqlite"))
            || (name.hasPrefix(".labels-") && name.hasSuffix(".sqlite"))
        {
            let path = directory.appendingPathComponent(name).path
            if !named.contains(path), unlink(path) == 0 { removed += 1 }
        }
        removed += VaultBackup.removeAbandonedStaging(beside: directory)
        return removed
    }

    /// Deletes every record and every photo file: closes `database`, removes the database file with its
    /// `-wal`/`-shm`/`-journal` files, everything under `photos/` and `lost+found/` and every temporary file (a name starting with a
    /// dot) in the vault folder, then reopens `database` on a new, empty file
    /// migrated to `migrations`. `database` stays usable afterwards.
    ///
    /// The process first becomes the vault's only writer (`VaultLock.claimExclusive`): while `cairn serve` runs
    /// elsewhere, or other commands keep writing, it refuses (`VaultError.servedElsewhere`, `.busyElsewhere`)
    /// and removes nothing, so no other process is left holding a database that was deleted under it. A
    /// command that only reads may still have the old file open; it sees the deleted data until it exits.
    public func deleteAllData(
        database: Database, migrations: [Migration] = CairnSchema.migrations,
        clock: any Clock = SystemClock()
    ) throws {
        guard database.path == databaseURL.path else {
            throw DatabaseError.misuse("deleteAllData was given a database outside this vault")
        }
        try database.vaultLock?.claimExclusive()
        do {
            try database.reopen {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try FileModes.removeFile(atPath: databaseURL.path + suffix)
                }
                try removeTree(photosDirectory)
                try FileModes.ensurePrivateDirectory(atPath: photosDirectory.path)
                // Photo files once kept aside are the person's data too: "all data" includes them.
                try removeTree(lostAndFoundURL)
                try FileModes.removeFile(atPath: reminderTimetableURL.path)
                try FileModes.removeFile(atPath: reminderQueueURL.path)
                try FileModes.removeFile(atPath: labelDatabaseURL.path)
                // Cairn's temporary files in the vault all have names starting with a dot (an Apple Health upload,
                // an import marker, a backup's database snapshot): none may outlive the data.
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(".") {
                    try removeTree(directory.appendingPathComponent(name))
                }
                try FileModes.syncDirectory(atPath: directory.path)
            }
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
        try Migrator(migrations, clock: clock).migrate(database)
    }

    private func removeTree(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw FileModes.SystemCallFailure(step: "remove photos folder", code: EIO)
        }
    }
}

extension VaultError {
    public var errorKind: ErrorKind {
        switch self {
        case .noHomeDirectory, .databaseMissing: return .unavailable
        case .directoryUnusable, .fileOperationFailed: return .failure
        case .servedElsewhere, .busyElsewhere, .lockAlreadyOn, .lockNotOn: return .conflict
        }
    }
}
