import CairnCore
import Encryption
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Photo files across a lock change (issue 21): encrypted in place when the lock goes on, decrypted when it goes
/// off, one file at a time.
///
/// Decision (crash safety): each file is rewritten on its own (a temp file written, synced, read back and checked,
/// then renamed over the old one), so every file is whole at every moment, in its old form or its new one. A
/// locked vault reads both forms: an encrypted file must open under the vault key, and a plain one is taken only
/// when its SHA-256 is the one its row keeps in the encrypted database (`PhotoFileForm`). The vault header stays
/// the one truth: while the lock is on the photos are being brought to "encrypted", while it is off they are all
/// plain. So turning the lock on encrypts the photos after the database's commit point (the new key is safe in the
/// header by then), and turning it off decrypts them before its first step (the key is still in the header). A
/// marker file (`.photos-converting`) is written before either starts and removed when the photos are done; an
/// open with the vault key that finds it (`finishPhotoConversion`, run by the app's tidying) finishes the job
/// towards the form the header says. A turn-off stopped half-way therefore ends locked, its photos encrypted
/// again: run it again.
extension Vault {
    /// Says a lock change's photo conversion is under way (empty; a name starting with a dot, so "Delete all data"
    /// removes it with the other temporary files).
    var photoConversionMarkerURL: URL { directory.appendingPathComponent(".photos-converting") }

    /// Whether a conversion was started and not finished (`finishPhotoConversion` ends it).
    public var photoConversionPending: Bool { FileManager.default.fileExists(atPath: photoConversionMarkerURL.path) }

    /// Finishes a photo conversion a stopped lock change left (see above): every photo of `database` brought to
    /// the form its key says (encrypted under it, or left plain without one: a vault whose lock is off never holds
    /// an encrypted photo, because turning the lock off decrypts them before its commit point). Nothing to do
    /// without the marker. Files that do not read as their photo are left as they are (they read as damaged
    /// whatever their form).
    public func finishPhotoConversion(database: Database) throws {
        guard photoConversionPending else { return }
        if let key = database.vaultKey {
            _ = try convertPhotos(of: database, readingWith: key, to: key)
            try convertLostAndFound(readingWith: key, to: key)
            try convertKeptFiles(readingWith: key, to: key)
        }
        try removePhotoConversionMarker()
    }

    /// Brings the files kept aside in `lost+found` to the form `target` says, like the photos: sealed under the
    /// vault key while the lock is on (their own name as the photo identifier), opened when it goes off, so that
    /// nothing there is readable under a lock and nothing is lost when the key goes away.
    func convertLostAndFound(readingWith readKey: SecretKey?, to target: SecretKey?) throws {
        guard access(lostAndFoundURL.path, F_OK) == 0 else { return }
        let vaultID = try header()?.vaultID ?? identifier()
        var files: [String] = []
        try PhotoFileStore.forEachFile(under: lostAndFoundURL.path) { _, path in files.append(path) }
        for path in files {
            guard let file = try? FileModes.readFile(atPath: path) else { continue }
            let id = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let rewritten: Data
            if let target, !EncryptedPhoto.isEncrypted(file) {
                rewritten = try EncryptedPhoto.seal(file, photoID: id, vaultID: vaultID, vaultKey: target)
            } else if target == nil, EncryptedPhoto.isEncrypted(file), let readKey,
                let opened = try? EncryptedPhoto.open(file, photoID: id, vaultID: vaultID, vaultKey: readKey)
            {
                rewritten = opened
            } else {
                continue
            }
            let temp = (path as NSString).deletingLastPathComponent + "/.tmp-\(UUID().uuidString.lowercased())"
            do {
                try FileModes.writeNewFile(rewritten, atPath: temp)
                try FileModes.check(Glibc.rename(temp, path), "rename kept-aside file")
                try FileModes.syncDirectory(atPath: (path as NSString).deletingLastPathComponent)
            } catch let failure as FileModes.SystemCallFailure {
                try? FileModes.removeFile(atPath: temp)
                throw VaultError.fileOperationFailed(failure.description)
            }
        }
    }

    func startPhotoConversion() throws {
        do {
            try FileModes.removeFile(atPath: photoConversionMarkerURL.path)
            try FileModes.writeNewFile(Data(), atPath: photoConversionMarkerURL.path)
            try FileModes.syncDirectory(atPath: directory.path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    func removePhotoConversionMarker() throws {
        do {
            try FileModes.removeFile(atPath: photoConversionMarkerURL.path)
            try FileModes.syncDirectory(atPath: directory.path)
        } catch let failure as FileModes.SystemCallFailure {
            throw VaultError.fileOperationFailed(failure.description)
        }
    }

    /// Rewrites the file of every photo `database` names in the form `target` says (encrypted under that vault
    /// key, plain without), reading it with `readKey` (`PhotoFileForm`). A file already in its new form is left
    /// alone, and so is a missing one. Returns the photos whose file does not read as their photo (damaged, altered):
    /// they are left as they are. `reached` is told after each file rewritten.
    func convertPhotos(
        of database: Database, readingWith readKey: SecretKey?, to target: SecretKey?,
        reached: (LockChangeStage) -> Void = { _ in }
    ) throws -> [PhotoID] {
        let rows = try database.read { try PhotoFileRow.all(in: $0) }
        let reading = try PhotoFileForm(vault: self, key: readKey)
        let writing = try PhotoFileForm(vault: self, key: target)
        var unreadable: [PhotoID] = []
        for row in rows {
            let path = directory.appendingPathComponent(row.path).path
            // A missing file has nothing to convert (the photo store reports it missing, whatever the lock).
            guard let file = try? FileModes.readFile(atPath: path) else { continue }
            if EncryptedPhoto.isEncrypted(file) == (target != nil) { continue }
            guard let photo = try? reading.photo(inFile: file, id: row.id, sha256: row.sha256),
                SHA256.hexDigest(photo) == row.sha256
            else {
                unreadable.append(row.id)
                continue
            }
            let temp = photosDirectory.appendingPathComponent(".tmp-\(UUID().uuidString.lowercased())").path
            do {
                try FileModes.writeNewFile(try writing.file(holding: photo, id: row.id), atPath: temp)
                let readBack = try? writing.photo(inFile: FileModes.readFile(atPath: temp), id: row.id, sha256: row.sha256)
                guard readBack == photo else {
                    try? FileModes.removeFile(atPath: temp)
                    throw PhotoStoreError.readBackMismatch
                }
                try FileModes.check(Glibc.rename(temp, path), "rename photo file")
                try FileModes.syncDirectory(atPath: (path as NSString).deletingLastPathComponent)
            } catch let failure as FileModes.SystemCallFailure {
                try? FileModes.removeFile(atPath: temp)
                throw VaultError.fileOperationFailed(failure.description)
            }
            reached(.photoConverted)
        }
        return unreadable
    }
}
