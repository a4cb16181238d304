import CairnCore
import Foundation

/// Reads a file the person named (a photo to import, a label, an export), with a size ceiling so a huge or
/// endless file cannot exhaust memory.
public enum InputFile {
    /// 256 MiB: larger than any phone photo; larger inputs (health exports) are streamed, not read whole.
    public static let defaultMaximumBytes = 256 << 20

    /// The file's bytes. Throws `InputFileError` with a message that does not repeat the path.
    public static func read(_ path: String, maximumBytes: Int = defaultMaximumBytes) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputFileError.missing
        }
        guard !isDirectory.boolValue else { throw InputFileError.isDirectory }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? NSNumber, size.intValue > maximumBytes {
            throw InputFileError.tooLarge(limit: maximumBytes)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw InputFileError.unreadable }
        defer { close(descriptor) }
        // Read at most one byte past the limit, so a file that grows while being read is still refused.
        guard let data = try? WholeFile.read(descriptor: descriptor, limit: maximumBytes) else { return Data() }
        guard data.count <= maximumBytes else { throw InputFileError.tooLarge(limit: maximumBytes) }
        return data
    }
}

/// Why a named file could not be read.
public enum InputFileError: CairnError, Equatable {
    case missing, isDirectory, unreadable
    case tooLarge(limit: Int)

    public var userMessage: String {
        switch self {
        case .missing: return "The file does not exist."
        case .isDirectory: return "That is a folder, not a file."
        case .unreadable: return "The file could not be opened for reading (check its permissions)."
        case .tooLarge(let limit): return "The file is larger than \(limit >> 20) MiB, more than Cairn reads."
        }
    }
}
