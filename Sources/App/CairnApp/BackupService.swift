import CairnCore
import Encryption
import Foundation
import Storage

/// What `BackupService.create` did.
public struct BackupResult: Sendable, Equatable {
    /// Where the backup was written.
    public let path: String
    /// What it holds, read back from the file itself (every digest checked).
    public let summary: BackupSummary
    /// Older backups of this vault that `keep` removed, oldest first.
    public let removed: [String]
}

/// Why a backup request was refused before anything was written.
public enum BackupRequestError: CairnError, Equatable {
    /// `keep` was given for a file rather than a folder.
    case keepNeedsFolder
    /// The new backup passphrase is shorter than `BackupService.minimumPassphraseLength`.
    case passphraseTooShort
    /// A file is already at the path given (a backup never replaces a file).
    case targetExists

    public var userMessage: String {
        switch self {
        case .keepNeedsFolder: return "--keep works with a folder: give a folder, and Cairn names each backup by its date."
        case .passphraseTooShort:
            return
                "Choose a backup passphrase of at least \(BackupService.minimumPassphraseLength) characters; a few words are easier to remember than symbols."
        case .targetExists:
            return
                "A file is already there, and a backup never replaces a file. Give another file name, or a folder (Cairn names each backup by its date). Nothing was written."
        }
    }
}

/// Encrypted backups of the vault: writing one (and proving it restores), checking one, restoring one.
public final class BackupService: Sendable {
    /// What a backup file is called inside a folder: `cairn-backup-YYYYMMDD-HHMMSS.cairnbackup`.
    public static let fileExtension = "cairnbackup"
    /// The shortest passphrase a new backup accepts.
    public static let minimumPassphraseLength = 8
    private static let namePrefix = "cairn-backup-"

    private let vault: Vault
    private let database: Database
    private let clock: any Clock

    /// A service over an opened vault and its database.
    public init(vault: Vault, database: Database, clock: any Clock) {
        self.vault = vault
        self.database = database
        self.clock = clock
    }

    /// Writes a backup to `path` (a new file; or, when `path` is a folder, a file named by the date inside it),
    /// owner-only (0600), through a temporary name. Before it returns, it reads the whole file back, deriving the
    /// key again from `passphrase`, and checks every digest; a backup that fails is removed and the error thrown.
    /// With `keep` (folders only), the backups of this vault in the folder beyond the newest `keep` are removed
    /// afterwards; backups of other vaults and other files are never touched.
    public func create(
        at path: String, passphrase: Passphrase, keep: Int? = nil,
        keyDerivation: KeyDerivation = .standard()
    ) throws -> BackupResult {
        guard passphrase.characterCount >= Self.minimumPassphraseLength else { throw BackupRequestError.passphraseTooShort }
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        let folderGiven = exists && isFolder.boolValue
        if keep != nil, !folderGiven { throw BackupRequestError.keepNeedsFolder }
        let registry = TemporaryArtefacts(vault: vault)
        // In a folder, a second backup within the same second is named "…-2", never refused.
        var target = folderGiven ? (path as NSString).appendingPathComponent(fileName(at: clock.now())) : path
        var file: OutputFile
        var attempt = 1
        while true {
            do {
                file = try OutputFile(path: target, replace: false, registry: registry)
                break
            } catch OutputFileError.exists where folderGiven && attempt < 100 {
                attempt += 1
                target = (path as NSString).appendingPathComponent(fileName(at: clock.now(), attempt: attempt))
            } catch OutputFileError.exists {
                throw BackupRequestError.targetExists
            }
        }
        do {
            _ = try VaultBackup.write(
                vault: vault, database: database, passphrase: passphrase, createdAt: clock.now(),
                keyDerivation: keyDerivation
            ) { bytes in
                guard file.write(bytes) else { throw OutputFileError.unwritable }
            }
        } catch {
            file.discard()
            throw error
        }
        CrashPoint.reached("backup-written")
        do {
            try file.commit()
        } catch OutputFileError.exists {
            throw BackupRequestError.targetExists
        }
        let summary: BackupSummary
        do {
            summary = try VaultBackup.verify(fileAt: target, passphrase: passphrase)
        } catch {
            unlink(target)
            throw error
        }
        let removed = try keep.map { try prune(folder: path, keeping: $0) } ?? []
        return BackupResult(path: target, summary: summary, removed: removed)
    }

    /// Reads the header of the file at `path` (no passphrase): throws unless it is a Cairn backup this Cairn reads,
    /// so a command can refuse a wrong file before it asks for a passphrase.
    public static func checkHeader(ofBackupAt path: String) throws {
        _ = try VaultBackup.header(ofFileAt: path)
    }

    /// Throws `BackupError.restoreTargetNotEmpty` unless `directory` is missing or an empty folder.
    public static func checkRestoreTarget(_ directory: URL) throws {
        try VaultBackup.checkRestoreTarget(directory)
    }

    /// The folder a restore writes into: `dataDirectory` as every command reads `--data-dir` (and `CAIRN_HOME`).
    public static func restoreTarget(dataDirectory: String, environment: [String: String]) throws -> URL {
        try Vault.resolveDirectory(dataDir: dataDirectory, environment: environment)
    }

    /// Decrypts the whole backup at `path` and checks every file's SHA-256 against its manifest.
    public static func verify(at path: String, passphrase: Passphrase) throws -> BackupSummary {
        try VaultBackup.verify(fileAt: path, passphrase: passphrase)
    }

    /// Restores the backup at `path` into `directory` (missing or empty), verified before it is moved into place.
    public static func restore(from path: String, into directory: URL, passphrase: Passphrase) throws -> BackupSummary {
        try VaultBackup.restore(fileAt: path, passphrase: passphrase, into: directory)
    }

    /// Writes a backup for a download: into the vault folder under a hidden name, registered as a temporary
    /// artefact before it is made, checked like `create`, then opened and unlinked at once: the caller gets its
    /// open descriptor (and closes it), so no copy stays in the vault, and one a kill leaves is removed by the next
    /// command that opens the vault. `name` is what to call the saved file.
    public func createForDownload(passphrase: Passphrase, keyDerivation: KeyDerivation = .standard()) throws -> (
        descriptor: Int32, name: String, result: BackupResult
    ) {
        let path = vault.directory.appendingPathComponent(".download-\(UUID().uuidString.lowercased()).\(Self.fileExtension)").path
        let registered = try TemporaryArtefacts(vault: vault).register(path, kind: .download)
        defer { registered.finish(removing: true) }
        let result = try create(at: path, passphrase: passphrase, keyDerivation: keyDerivation)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupError.fileOperationFailed("open the download: errno \(errno)") }
        return (descriptor, fileName(at: clock.now()), result)
    }

    private func fileName(at date: Date, attempt: Int = 1) -> String {
        Self.namePrefix + DateText.string(date, .fileStamp, in: clock.timeZone) + (attempt > 1 ? "-\(attempt)" : "")
            + "." + Self.fileExtension
    }

    /// The order of this folder's backups by their names: the date, then the "-N" of a second one in a second.
    private static func sortKey(_ name: String) -> (String, Int) {
        let stem = String(name.dropFirst(namePrefix.count).dropLast(fileExtension.count + 1))
        let parts = stem.split(separator: "-").map(String.init)
        guard parts.count == 3, let attempt = Int(parts[2]) else { return (stem, 1) }
        return (parts[0] + "-" + parts[1], attempt)
    }

    /// Removes this vault's backups in `folder` beyond the newest `keep` (by the date in their names).
    private func prune(folder: String, keeping keep: Int) throws -> [String] {
        let ours = try vault.identifier()
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix(Self.namePrefix) && $0.hasSuffix("." + Self.fileExtension) }
            .sorted { Self.sortKey($0) < Self.sortKey($1) }
            .filter { name in
                (try? VaultBackup.header(ofFileAt: (folder as NSString).appendingPathComponent(name)).vaultID) == ours
            }
        let doomed = names.dropLast(max(0, keep))
        var removed: [String] = []
        for name in doomed {
            let path = (folder as NSString).appendingPathComponent(name)
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }
}

extension BackupRequestError {
    public var errorKind: ErrorKind { self == .targetExists ? .conflict : .refusedInput }
}
