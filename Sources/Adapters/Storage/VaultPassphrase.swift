import CairnCore
import Encryption
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The vault's lock as the person set it (`vault.header`; docs/ENCRYPTION.md, "Vault header").
public enum LockSetting: Sendable, Equatable {
    /// Never asked or never answered: no vault header.
    case neverSet
    /// Asked to choose a passphrase, the person said "Not now" (remembered).
    case declined
    /// The lock was on and the person turned it off.
    case turnedOff
    /// The lock is on: the database is encrypted and opening it needs the passphrase.
    case on
}

/// The points a lock change passes (for the crash tests, which stop a child process at each). Turning the lock
/// on passes them in this order; turning it off converts its photos first, then goes from `staged` to `done`.
public enum LockChangeStage: String, Sendable, CaseIterable {
    /// The new database is written beside the old one (`.cairn.sqlite.staged`) and checked whole.
    case staged
    /// The new vault header is written beside the old one (`vault.header.pending`).
    case headerPending
    /// The new database replaced the old one (the commit point).
    case databaseReplaced
    /// The new vault header replaced the old one.
    case headerReplaced
    /// A photo file was rewritten in its new form (reached after each one).
    case photoConverted
    /// Every photo is in its new form and the conversion's marker is gone: the change is done.
    case done
}

/// Encryption in place, decryption in place and the passphrase (issue 21).
///
/// Decision (crash safety): a lock change never edits the database. It writes the new database beside the old one
/// (a page-for-page copy through SQLite's backup API, checked whole), writes the new header beside the old one,
/// then renames the new database over the old one: that rename is the commit point. The database file says by
/// itself whether it is encrypted (a plain SQLite file starts with "SQLite format 3"), so at the next open a
/// leftover `vault.header.pending` is moved into place when it matches the database (the change got past its
/// commit point) and removed otherwise, with the staged copy. A `kill -9` anywhere leaves the old readable vault
/// or the new one, never neither. The photo files follow the header (see `VaultPhotoConversion.swift`).
extension Vault {
    /// The vault header's file name.
    public static let headerFileName = "vault.header"
    /// The vault header.
    public var headerURL: URL { directory.appendingPathComponent(Self.headerFileName) }
    var pendingHeaderURL: URL { directory.appendingPathComponent(Self.headerFileName + ".pending") }
    var stagedDatabaseURL: URL { directory.appendingPathComponent(".cairn.sqlite.staged") }

    /// Whether the database file is encrypted: it exists and does not start with SQLite's plain header.
    /// (Read without ever closing a descriptor of a file this process may have open in SQLite: `DatabaseFileStart`.)
    public var databaseIsEncrypted: Bool {
        guard let start = DatabaseFileStart.read(databaseURL.path, count: 16) else { return false }
        return !start.isEmpty && start != Array("SQLite format 3\0".utf8)
    }

    /// The vault header as it stands (nil: the lock was never set), after finishing or undoing a lock change a
    /// crash interrupted. Throws `EncryptionError` for a damaged header, `VaultError` when it cannot be read.
    public func header() throws -> VaultHeader? {
        try finishInterruptedLockChange()
        return try storedHeader(at: headerURL)
    }

    /// What the person chose for the lock.
    public func lockSetting() throws -> LockSetting {
        switch try header()?.state {
        case nil: return .neverSet
        case .declined: return .declined
        case .turnedOff: return .turnedOff
        case .on: return .on
        }
    }

    /// The vault key the passphrase unwraps. Throws `VaultError.lockNotOn` when the lock is off,
    /// `EncryptionError.wrongVaultPassphrase` for a passphrase that does not unlock it.
    public func unlock(passphrase: Passphrase) throws -> SecretKey {
        guard let current = try header(), current.state == .on else { throw VaultError.lockNotOn }
        return try current.vaultKey(passphrase: passphrase)
    }

    /// Remembers "Not now": only when the lock was never set (turned off stays turned off, on stays on).
    public func declineLock() throws {
        guard try header() == nil else { return }
        try replaceHeader(with: .unlocked(.declined, vaultID: identifier()))
    }

    /// Changes the passphrase: the same vault key wrapped anew (new salt, new nonce); the database is not touched.
    /// Throws `EncryptionError.wrongVaultPassphrase` when `passphrase` is not the current one.
    public func changePassphrase(
        from passphrase: Passphrase, to newPassphrase: Passphrase,
        keyDerivation: KeyDerivation = .standard()
    ) throws {
        guard let current = try header(), current.state == .on else { throw VaultError.lockNotOn }
        try replaceHeader(with: current.rewrapped(passphrase: passphrase, newPassphrase: newPassphrase, keyDerivation: keyDerivation))
    }

    /// Turns the lock on: a new random vault key, wrapped under `passphrase`, the database encrypted in place
    /// (crash-safe, see above), then every photo file. `database` (this vault's, plain) is closed; the encrypted
    /// database is returned, open and migrated. The process must be able to become the vault's only writer
    /// (`VaultLock.claimExclusive`). `reached` is told each stage (tests stop there).
    public func turnLockOn(
        database: Database, passphrase: Passphrase, keyDerivation: KeyDerivation = .standard(),
        migrations: [Migration] = CairnSchema.migrations, clock: any Clock = SystemClock(),
        reached told: (LockChangeStage) -> Void = { _ in }
    ) throws -> Database {
        func reached(_ stage: LockChangeStage) {
            Self.crashPoint(stage)
            told(stage)
        }
        guard database.path == databaseURL.path else { throw DatabaseError.misuse("turnLockOn was given a database outside this vault") }
        guard try header()?.state != .on, !database.isEncrypted, !databaseIsEncrypted else { throw VaultError.lockAlreadyOn }
        // The vault is this process's alone before anything is said or written (a refusal leaves no marker).
        guard let lock = database.vaultLock else { throw DatabaseError.misuse("a vault database without its lock") }
        try lock.claimExclusive()
        // No plaintext copy may outlive "on": what processes that are gone left is removed, and a copy a running
        // backup still holds stops the change.
        removeAbandonedArtefacts()
        if TemporaryArtefacts(vault: self).entries().contains(where: { $0.ownerRunning && $0.kind != .photoWrite && $0.kind != .photoDeletion }) {
            throw VaultError.busyElsewhere
        }
        let key = SecretKey.random()
        // The key derivation (about half a second) before anything is written.
        let newHeader = try VaultHeader.locked(vaultKey: key, passphrase: passphrase, vaultID: identifier(), keyDerivation: keyDerivation)
        // The marker first: a crash after the commit point finds it, and the next open with the key goes on.
        try startPhotoConversion()
        try changeDatabase(database, to: key, header: newHeader, reached: reached)
        let encrypted = try openDatabase(migrations: migrations, clock: clock, key: key)
        do {
            try encrypted.vaultLock?.claimExclusive()
            defer { encrypted.vaultLock?.release() }
            _ = try convertPhotos(of: encrypted, readingWith: key, to: key, reached: reached)
            try convertLostAndFound(readingWith: key, to: key)
            try convertKeptFiles(readingWith: key, to: key)
            try removePhotoConversionMarker()
            reached(.done)
        } catch {
            encrypted.close()
            throw error
        }
        return encrypted
    }

    /// Turns the lock off: every photo file decrypted, then the database decrypted in place (crash-safe), the
    /// header kept as "turned off" (no key). Needs the passphrase. `database` (this vault's, encrypted) is closed;
    /// the plain database is returned. An encrypted photo file that does not open stops it before the database
    /// is touched (`PhotoStoreError.fileDamaged`): without the key it could never be read again.
    public func turnLockOff(
        database: Database, passphrase: Passphrase, migrations: [Migration] = CairnSchema.migrations,
        clock: any Clock = SystemClock(), reached told: (LockChangeStage) -> Void = { _ in }
    ) throws -> Database {
        func reached(_ stage: LockChangeStage) {
            Self.crashPoint(stage)
            told(stage)
        }
        guard database.path == databaseURL.path else { throw DatabaseError.misuse("turnLockOff was given a database outside this vault") }
        guard let current = try header(), current.state == .on, database.isEncrypted else { throw VaultError.lockNotOn }
        let key = try current.vaultKey(passphrase: passphrase)
        guard let lock = database.vaultLock else { throw DatabaseError.misuse("a vault database without its lock") }
        try lock.claimExclusive()
        do {
            try startPhotoConversion()
            let unreadable = try convertPhotos(of: database, readingWith: key, to: nil, reached: reached)
            try convertLostAndFound(readingWith: key, to: nil)
            try convertKeptFiles(readingWith: key, to: nil)
            guard unreadable.isEmpty else {
                throw PhotoStoreError.fileDamaged("\(unreadable.count) encrypted photo file(s) do not open; the lock stays on")
            }
        } catch {
            lock.release()
            throw error
        }
        try changeDatabase(database, to: nil, header: .unlocked(.turnedOff, vaultID: current.vaultID), reached: reached)
        try removePhotoConversionMarker()
        reached(.done)
        return try openDatabase(migrations: migrations, clock: clock)
    }

    // MARK: internals

    /// The crash point of each stage (`CrashPoint`: `lock-staged`, …, `lock-photoConverted#N`).
    private static func crashPoint(_ stage: LockChangeStage) { CrashPoint.reached("lock-" + stage.rawValue) }

    /// Writes the database anew (encrypted with `key`, plain without) and `header`, and swaps both in.
    private func changeDatabase(
        _ database: Database, to key: SecretKey?, header: VaultHeader,
        reached: (LockChangeStage) -> Void
    ) throws {
        guard let lock = database.vaultLock else { throw DatabaseError.misuse("a vault database without its lock") }
        try lock.claimExclusive()
        defer { lock.release() }
        do {
            try removeStagedDatabase()
            if key != nil { try database.reserveCipherSpaceInPlace() }
            let staged = try Database(path: stagedDatabaseURL.path, key: key)
            do {
                try database.copyPages(into: staged)
                let check = try staged.read { try $0.scalar("PRAGMA integrity_check", as: String.self) }
                guard check == "ok" else { throw DatabaseError.misuse("the new database failed its check: \(check ?? "nil")") }
                staged.close()
            } catch {
                staged.close()
                throw error
            }
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: stagedDatabaseURL.path + suffix) {
                throw DatabaseError.misuse("the new database kept its \(suffix) file")
            }
            try FileModes.syncFile(atPath: stagedDatabaseURL.path)
            reached(.staged)
            try writeSynced(header.bytes, to: pendingHeaderURL)
            reached(.headerPending)
            database.close()
            // The old database was checkpointed into its file on close: its WAL and index go with it (the new
            // file has neither: it was closed cleanly too).
            for suffix in ["-wal", "-shm"] { try FileModes.removeFile(atPath: databaseURL.path + suffix) }
            try rename(stagedDatabaseURL, to: databaseURL)
            reached(.databaseReplaced)
            try rename(pendingHeaderURL, to: headerURL)
            reached(.headerReplaced)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    /// Finishes or undoes a lock change that stopped half-way (see the decision above). Only when no other
    /// process holds the vault exclusively (one that does may be changing the lock right now).
    func finishInterruptedLockChange() throws {
        let pendingExists = FileManager.default.fileExists(atPath: pendingHeaderURL.path)
        let stagedExists = FileManager.default.fileExists(atPath: stagedDatabaseURL.path)
        guard pendingExists || stagedExists else { return }
        let probe = try? FileLock(path: directory.appendingPathComponent(VaultLock.fileName).path)
        guard let probe, probe.tryLock(exclusive: false) else { return }
        defer { probe.unlock() }
        do {
            if pendingExists {
                let pending = try? storedHeader(at: pendingHeaderURL)
                if let pending, (pending.state == .on) == databaseIsEncrypted {
                    try rename(pendingHeaderURL, to: headerURL)
                } else {
                    try FileModes.removeFile(atPath: pendingHeaderURL.path)
                }
            }
            try removeStagedDatabase()
            try FileModes.syncDirectory(atPath: directory.path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    private func storedHeader(at url: URL) throws -> VaultHeader? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try FileModes.readFile(atPath: url.path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
        return try VaultHeader.parse(Array(data))
    }

    private func replaceHeader(with header: VaultHeader) throws {
        do {
            try writeSynced(header.bytes, to: pendingHeaderURL)
            try rename(pendingHeaderURL, to: headerURL)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    private func writeSynced(_ bytes: [UInt8], to url: URL) throws {
        let temp = url.path + ".tmp"
        try FileModes.removeFile(atPath: temp)
        try FileModes.writeNewFile(Data(bytes), atPath: temp)
        try rename(URL(fileURLWithPath: temp), to: url)
    }

    private func rename(_ from: URL, to: URL) throws {
        try FileModes.check(Glibc.rename(from.path, to.path), "rename")
        try FileModes.syncDirectory(atPath: directory.path)
    }

    private func removeStagedDatabase() throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try FileModes.removeFile(atPath: stagedDatabaseURL.path + suffix) }
    }
}
