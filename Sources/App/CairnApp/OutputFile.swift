import CairnCore
import Foundation
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file Cairn was asked to write was not written. Messages name no path or content.
public enum OutputFileError: CairnError, Equatable {
    /// A file is already at the path and replacing was not asked for.
    case exists
    /// The path names a folder.
    case isDirectory
    /// The folder is missing or not writable, or the disk refused the bytes.
    case unwritable

    public var userMessage: String {
        switch self {
        case .exists: return "A file is already there. Nothing was written; add --force to replace it."
        case .isDirectory: return "--out names a folder; give a file name."
        case .unwritable: return "The file could not be written there (check the folder exists and its permissions)."
        }
    }
}

/// Writes a file the person asked for (a report, an export) so that nothing half-written stays behind: the bytes
/// go to a hidden temporary name in the target folder, created owner-only (mode 0600 whatever the umask), are
/// flushed to disk, and only then take the final name. Without `replace`, an existing file is never touched
/// (the final step is a hard link, which fails rather than overwrite, even against a file made meanwhile).
public final class OutputFile {
    private let target: String
    private let temporary: String
    private let replace: Bool
    private var descriptor: Int32
    private var failed = false
    private let registered: TemporaryArtefact?

    /// Opens a temporary file beside `path`. Throws `exists`, `isDirectory`, `unwritable`. With `registry` (a
    /// vault's), the temporary file is registered there before it is made, so that one a kill leaves is removed
    /// by the next command that opens the vault (`Vault.removeAbandonedArtefacts`).
    public init(path: String, replace: Bool, registry: TemporaryArtefacts? = nil) throws {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw OutputFileError.isDirectory }
            if !replace { throw OutputFileError.exists }
        }
        target = url.path
        let folder = url.deletingLastPathComponent().path
        temporary = folder + "/.cairn-" + UUID().uuidString.prefix(12).lowercased() + ".partial"
        self.replace = replace
        registered = try registry?.register(temporary, kind: .partialFile)
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            registered?.finish(removing: false)
            throw OutputFileError.unwritable
        }
        // The umask only removes bits; set the mode explicitly anyway, so it is exactly owner read/write.
        fchmod(descriptor, 0o600)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }

    /// Appends `bytes`; returns false (and remembers the failure) when the disk refuses them.
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed, descriptor >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failed = true
                return false
            }
            offset += n
        }
        return true
    }

    /// Flushes the bytes to disk and gives the file its final name. Throws `exists` when a file appeared at the
    /// path meanwhile (and replacing was not asked for), `unwritable` when a write or the flush failed; either
    /// way the temporary file is removed.
    public func commit() throws {
        // Whatever happens the temporary name is gone when this returns (renamed, linked and unlinked, or removed).
        defer { registered?.finish(removing: true) }
        guard descriptor >= 0 else { throw OutputFileError.unwritable }
        guard !failed, fsync(descriptor) == 0 else {
            discard()
            throw OutputFileError.unwritable
        }
        close(descriptor)
        descriptor = -1
        if replace {
            guard rename(temporary, target) == 0 else {
                unlink(temporary)
                throw OutputFileError.unwritable
            }
        } else {
            if link(temporary, target) == 0 {
                unlink(temporary)
            } else if errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS {
                // A file system without hard links (FAT on a USB stick): check, then rename.
                guard access(target, F_OK) != 0 else {
                    unlink(temporary)
                    throw OutputFileError.exists
                }
                guard rename(temporary, target) == 0 else {
                    unlink(temporary)
                    throw OutputFileError.unwritable
                }
            } else {
                let error = errno
                unlink(temporary)
                throw error == EEXIST ? OutputFileError.exists : OutputFileError.unwritable
            }
        }
        // Make the new name itself durable.
        let folder = open(URL(fileURLWithPath: target).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Removes the temporary file; nothing is left behind.
    public func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporary)
        registered?.finish(removing: false)
    }

    /// Writes `data` to `path` in one go (see the type's description).
    public static func write(_ data: Data, to path: String, replace: Bool) throws {
        let file = try OutputFile(path: path, replace: replace)
        let ok = data.withUnsafeBytes { file.write($0) }
        guard ok else {
            file.discard()
            throw OutputFileError.unwritable
        }
        try file.commit()
    }
}

extension OutputFileError {
    public var errorKind: ErrorKind {
        switch self {
        case .exists: return .conflict
        case .isDirectory: return .refusedInput
        case .unwritable: return .failure
        }
    }
}
