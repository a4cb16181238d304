internal import CSQLite
import Encryption
import Foundation
internal import SQLiteCipherShim

/// The page cipher of one encrypted database: an SQLite VFS of its own (a unique name, registered while this
/// object lives) that seals every page of the database file and of its WAL with the vault key on the way to the
/// disk and opens it on the way back (`PageCipher`; the format is in docs/ENCRYPTION.md, "Database pages"). A
/// page that does not open is SQLITE_IOERR_DATA, which `DatabaseError` reports as `.unreadable`.
final class CipherVFS: @unchecked Sendable {
    /// The page size of every encrypted database.
    static let pageSize = Int(CAIRN_CIPHER_PAGE_SIZE)
    /// The bytes reserved at the end of each page for the nonce and the tag.
    static let reservedBytes = Int32(CAIRN_CIPHER_RESERVED_BYTES)
    /// The name connections pass to `sqlite3_open_v2`.
    let name: String
    /// The vault key (photo files are sealed under a key derived from it: `EncryptedPhoto`).
    let key: SecretKey
    private let cipher: Unmanaged<PageCipher>

    /// Registers a VFS sealing pages with `key`.
    init(key: SecretKey) throws {
        precondition(PageCipher.reservedByteCount == Int(CAIRN_CIPHER_RESERVED_BYTES))
        _ = SQLiteLibrary.prepared
        name = "cairn-cipher-\(UUID().uuidString)"
        self.key = key
        cipher = .passRetained(PageCipher(key: key))
        let rc = cairn_cipher_vfs_register(name, cipher.toOpaque(), sealPage, openPage)
        guard rc == SQLITE_OK else {
            cipher.release()
            throw DatabaseError.from(code: rc, db: nil, sql: nil)
        }
    }

    /// Unregisters the VFS: every connection through it must be closed by now.
    deinit {
        cairn_cipher_vfs_unregister(name)
        cipher.release()
    }

    /// The 16 bytes of associated data for database page `pageNumber` (1-based), or for a WAL frame's page with
    /// the frame header's `salts`: what the C shim binds each page to (documented beside the test vectors).
    static func associatedData(pageNumber: UInt32, walSalts: [UInt8]? = nil) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(CAIRN_CIPHER_AD_BYTES))
        if let walSalts {
            precondition(walSalts.count == 8)
            cairn_cipher_associated_data(pageNumber, walSalts, &out)
        } else {
            cairn_cipher_associated_data(pageNumber, nil, &out)
        }
        return out
    }
}

private let sealPage: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32 = {
    context, page, associatedData in
    guard let context, let page, let associatedData else { return 1 }
    Unmanaged<PageCipher>.fromOpaque(context).takeUnretainedValue()
        .seal(
            page: page, count: CipherVFS.pageSize, associatedData: associatedData,
            associatedDataCount: Int(CAIRN_CIPHER_AD_BYTES))
    return 0
}

private let openPage: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32 = {
    context, page, associatedData in
    guard let context, let page, let associatedData else { return 1 }
    let opened = Unmanaged<PageCipher>.fromOpaque(context).takeUnretainedValue()
        .open(
            page: page, count: CipherVFS.pageSize, associatedData: associatedData,
            associatedDataCount: Int(CAIRN_CIPHER_AD_BYTES))
    return opened ? 0 : 1
}
