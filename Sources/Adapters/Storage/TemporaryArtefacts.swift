import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The vault's one registry of temporary artefacts (issue 36): every file or folder Cairn writes for a moment
/// and removes when done (a backup's database snapshot, a partial backup beside its destination, a backup made
/// for a download, a photo file between its rename and its row's commit, a photo file between its row's deletion
/// and its unlinking, a Health Connect database copied out of its zip) is named here before any byte of it is
/// written.
///
/// Decisions:
/// - An entry is one small file, `<vault>/.artefacts/<random>.entry`, holding the artefact's kind, the owning
///   process's id and the artefact's path. The owner holds an exclusive `flock` on the entry for as long as the
///   artefact is its own; the kernel lets go of it when the process ends, however it ends. So "the owner is gone"
///   is "the entry's lock can be taken", which no reused process id can fake.
/// - An entry is written and locked under a `.pending` name and renamed into place, so whoever looks never sees a
///   named entry without its lock held.
/// - An entry is not fsynced: after a power cut an artefact may have lost its entry, and then it is not removed
///   but kept aside (a photo file goes to `lost+found`), which loses nothing. A `kill -9` loses no entry.
/// - Only names Cairn itself gives are ever removed through an entry (`Kind.accepts`): an edited entry cannot
///   make Cairn delete another file.
public struct TemporaryArtefacts: Sendable {
    /// The registry's folder inside the vault (a name starting with a dot: "Delete all data" removes it).
    public static let folderName = ".artefacts"

    /// What an artefact is; its raw value is written in the entry.
    public enum Kind: String, Sendable, CaseIterable {
        /// A backup's copy of the database (`<vault>/.backup-<uuid>.sqlite`).
        case backupSnapshot = "backup-snapshot"
        /// A backup being written beside its destination (`.cairn-<hex>.partial`).
        case partialFile = "partial-file"
        /// A backup made for a download (`<vault>/.download-<uuid>.cairnbackup`).
        case download
        /// A photo file renamed into place whose row is not committed yet (`photos/<2 hex>/<id>.<ext>`).
        case photoWrite = "photo-write"
        /// A photo file whose row is being deleted; the file goes once the deletion commits.
        case photoDeletion = "photo-deletion"
        /// A Health Connect export's database copied out of its zip for reading
        /// (`<vault>/.health-connect-<uuid>.sqlite`, 0600), removed when the import ends.
        case healthConnectCopy = "health-connect-copy"
        /// A label database being built beside the vault (`<vault>/.labels-<uuid>.sqlite`), renamed over
        /// `labels.sqlite` once whole.
        case labelDatabaseBuild = "label-database-build"

        /// Whether `path` has the form Cairn gives this kind of artefact.
        func accepts(_ path: String) -> Bool {
            let name = (path as NSString).lastPathComponent
            switch self {
            case .backupSnapshot: return name.hasPrefix(".backup-") && name.hasSuffix(".sqlite")
            case .partialFile: return name.hasPrefix(".cairn-") && name.hasSuffix(".partial")
            case .download: return name.hasPrefix(".download-")
            case .healthConnectCopy: return name.hasPrefix(".health-connect-") && name.hasSuffix(".sqlite")
            case .labelDatabaseBuild: return name.hasPrefix(".labels-") && name.hasSuffix(".sqlite")
            case .photoWrite, .photoDeletion:
                let folder = ((path as NSString).deletingLastPathComponent as NSString)
                return folder.deletingLastPathComponent.hasSuffix("/photos") && !name.hasPrefix(".")
            }
        }
    }

    /// One entry as read from the registry.
    public struct Entry: Sendable, Equatable {
        public let kind: Kind
        /// The process that registered it.
        public let processID: Int32
        /// The artefact's absolute path.
        public let path: String
        /// Whether its owner still runs (its lock is held).
        public let ownerRunning: Bool
    }

    /// The registry's folder.
    public let folder: URL

    /// The registry of `vault`.
    public init(vault: Vault) {
        folder = vault.directory.appendingPathComponent(Self.folderName)
    }

    /// Registers `path` as an artefact of `kind` owned by this process, before anything is written there.
    /// Throws `VaultError.fileOperationFailed` when the entry cannot be written.
    public func register(_ path: String, kind: Kind) throws -> TemporaryArtefact {
        precondition(kind.accepts(path), "a \(kind.rawValue) artefact Cairn would not name so: \(path)")
        let token = UUID().uuidString.lowercased()
        let pending = folder.appendingPathComponent(token + ".pending").path
        let entry = folder.appendingPathComponent(token + ".entry").path
        do {
            if access(folder.path, F_OK) != 0 { try FileModes.ensurePrivateDirectory(atPath: folder.path) }
            let lock = try FileLock(path: pending)
            guard lock.tryLock(exclusive: true) else { throw FileModes.SystemCallFailure(step: "lock artefact entry", code: EAGAIN) }
            lock.write("\(kind.rawValue)\n\(getpid())\n\(path)\n")
            try FileModes.check(rename(pending, entry), "name artefact entry")
            return TemporaryArtefact(path: path, entryPath: entry, lock: lock)
        } catch let failure as FileModes.SystemCallFailure {
            try? FileModes.removeFile(atPath: pending)
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    /// Every entry, with whether its owner still runs. An unreadable entry is left out.
    public func entries() -> [Entry] {
        entryNames().compactMap { name in
            let path = folder.appendingPathComponent(name).path
            guard let lock = try? FileLock(path: path, create: false) else { return nil }
            let free = lock.tryLock(exclusive: true)
            defer { if free { lock.unlock() } }
            guard lock.isStillNamed else { return nil }
            return Self.parse(lock.read(), ownerRunning: !free)
        }
    }

    /// Removes the artefacts of `kinds` whose owner is gone, then their entries; returns the entries removed. An
    /// entry whose owner runs is left alone, and so is its artefact. `decide` may keep an artefact (its entry goes):
    /// a photo written whose row did commit.
    @discardableResult
    public func removeAbandoned(
        _ kinds: Set<Kind> = Set(Kind.allCases),
        keeping keep: (Entry) -> Bool = { _ in false }
    ) -> [Entry] {
        var removed: [Entry] = []
        for name in entryNames() {
            let path = folder.appendingPathComponent(name).path
            // Taken, and still named: its owner died. (An owner that finishes removes the entry before it lets go.)
            guard let lock = try? FileLock(path: path, create: false), lock.tryLock(exclusive: true) else { continue }
            guard lock.isStillNamed else {
                lock.unlock()
                continue
            }
            if name.hasSuffix(".pending") {
                // Registered half-way: its artefact was never written.
                unlink(path)
                continue
            }
            guard let entry = Self.parse(lock.read(), ownerRunning: false) else {
                lock.unlock()
                continue
            }
            guard kinds.contains(entry.kind) else {
                lock.unlock()
                continue
            }
            if !keep(entry), entry.kind.accepts(entry.path) { removeItem(atPath: entry.path) }
            unlink(path)
            removed.append(entry)
        }
        return removed
    }

    private func entryNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".entry") || $0.hasSuffix(".pending") }.sorted()
    }

    private static func parse(_ text: String, ownerRunning: Bool) -> Entry? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, let kind = Kind(rawValue: lines[0]), let pid = Int32(lines[1]), lines[2].hasPrefix("/") else {
            return nil
        }
        return Entry(kind: kind, processID: pid, path: lines[2], ownerRunning: ownerRunning)
    }
}

/// Removes a file or a folder with everything in it; a missing one is no error.
func removeItem(atPath path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if (info.st_mode & S_IFMT) == S_IFDIR {
        try? FileManager.default.removeItem(atPath: path)
    } else {
        unlink(path)
    }
}

/// One registered artefact, owned by this process until `finish` (see `TemporaryArtefacts`).
public final class TemporaryArtefact: @unchecked Sendable {
    /// The artefact's path.
    public let path: String
    private let entryPath: String
    private let lock: FileLock
    private let state = NSLock()
    private var finished = false

    init(path: String, entryPath: String, lock: FileLock) {
        self.path = path
        self.entryPath = entryPath
        self.lock = lock
    }

    // No deinit: an artefact let go of without `finish` keeps its entry, whose lock the kernel releases with the
    // descriptor, so the next opener treats it as abandoned and applies its kind's rule.

    /// Lets go of the entry's lock and keeps the entry, as a process that is killed does (tests).
    func abandon() {
        state.withLock {
            finished = true
            lock.unlock()
        }
    }

    /// Ends the registration: the artefact is removed first when `removing` (it served its purpose, or what
    /// wrote it failed), then the entry. Idempotent.
    public func finish(removing: Bool) {
        state.withLock {
            guard !finished else { return }
            finished = true
            if removing { removeItem(atPath: path) }
            unlink(entryPath)
            lock.unlock()
        }
    }
}
