import CairnCore
import Encryption
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Small files the vault keeps for Cairn itself beside the database (today the phone session's TLS key and
/// certificate, `phone.tls`), in the form the vault's lock says: plain while it is off, sealed under the vault key
/// while it is on, exactly as a photo file is (`EncryptedPhoto`, the file's name standing for the photo's identifier,
/// as for the files kept aside in lost+found). A lock change converts them with the photos (`convertKeptFiles`).
extension Vault {
    /// The phone session's key and certificate (PEM, the key first).
    public static let phoneIdentityFileName = "phone.tls"
    /// Every kept file a lock change converts.
    static let keptFileNames = [phoneIdentityFileName]

    /// The kept file `name` as its plain bytes, opened under `database`'s vault key when the lock is on; nil when
    /// there is none, or when it is sealed and cannot be opened (no key, another vault's file: it is made again). A
    /// plain file found while the lock is on is sealed in place before it is returned.
    public func readKeptFile(named name: String, database: Database) throws -> Data? {
        let path = directory.appendingPathComponent(name).path
        guard let file = try? FileModes.readFile(atPath: path) else { return nil }
        let key = database.vaultKey
        if EncryptedPhoto.isEncrypted(file) {
            guard let key else { return nil }
            return try? EncryptedPhoto.open(file, photoID: name, vaultID: try header()?.vaultID ?? identifier(), vaultKey: key)
        }
        if key != nil { try writeKeptFile(file, named: name, database: database) }
        return file
    }

    /// Replaces the kept file `name` with `bytes`, sealed when `database` has a vault key (written beside it, synced,
    /// then renamed over it).
    public func writeKeptFile(_ bytes: Data, named name: String, database: Database) throws {
        let stored = try database.vaultKey.map { key in
            try EncryptedPhoto.seal(bytes, photoID: name, vaultID: try header()?.vaultID ?? identifier(), vaultKey: key)
        }
        try replaceKeptFile(named: name, with: stored ?? bytes)
    }

    /// Brings every kept file to the form `target` says (sealed under it, or plain without one), reading a sealed one
    /// with `readKey`; one that does not open is removed (it is made again: a key Cairn can no longer read is no use).
    func convertKeptFiles(readingWith readKey: SecretKey?, to target: SecretKey?) throws {
        let vaultID = try header()?.vaultID ?? identifier()
        for name in Self.keptFileNames {
            let path = directory.appendingPathComponent(name).path
            guard let file = try? FileModes.readFile(atPath: path) else { continue }
            let plain: Data
            if EncryptedPhoto.isEncrypted(file) {
                guard let readKey, let opened = try? EncryptedPhoto.open(file, photoID: name, vaultID: vaultID, vaultKey: readKey) else {
                    try? FileModes.removeFile(atPath: path)
                    continue
                }
                plain = opened
                if target != nil, readKey === target { continue }
            } else {
                if target == nil { continue }
                plain = file
            }
            let rewritten = try target.map { try EncryptedPhoto.seal(plain, photoID: name, vaultID: vaultID, vaultKey: $0) } ?? plain
            try replaceKeptFile(named: name, with: rewritten)
        }
    }

    private func replaceKeptFile(named name: String, with bytes: Data) throws {
        let path = directory.appendingPathComponent(name).path
        let temp = directory.appendingPathComponent(".tmp-\(UUID().uuidString.lowercased())").path
        do {
            try FileModes.writeNewFile(bytes, atPath: temp)
            try FileModes.check(Glibc.rename(temp, path), "rename kept file")
            try FileModes.syncDirectory(atPath: directory.path)
        } catch let failure as FileModes.SystemCallFailure {
            try? FileModes.removeFile(atPath: temp)
            throw VaultError.fileOperationFailed(failure.description)
        }
    }
}
