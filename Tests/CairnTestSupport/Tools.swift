import Foundation

/// A command-line tool that failed.
public struct ToolFailure: Error, CustomStringConvertible {
    public let tool: String
    public let message: String
    public init(tool: String, message: String) {
        self.tool = tool
        self.message = message
    }
    public var description: String { "\(tool): \(message)" }
}

/// Finds and runs the command-line tools the tests use to make fixtures and to check results (exiftool, vips).
public enum Tools {
    /// The full path of `name` in the usual binary directories, or nil.
    public static func path(of name: String) -> String? {
        let directories =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments` (no shell) and returns its standard output; throws on a non-zero exit.
    /// Output goes through temporary files: reading a Pipe can trap on EINTR in Foundation on Linux.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let outURL = scratch.file("stdout")
        let errURL = scratch.file("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let data = try Data(contentsOf: outURL)
        guard process.terminationStatus == 0 else {
            throw ToolFailure(
                tool: (executable as NSString).lastPathComponent,
                message: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
        }
        return data
    }

    /// Runs a tool found by name.
    @discardableResult
    public static func run(tool name: String, _ arguments: [String]) throws -> Data {
        guard let executable = path(of: name) else { throw ToolFailure(tool: name, message: "not installed") }
        return try run(executable, arguments)
    }
}

/// A temporary directory, removed by `remove()`.
public struct Scratch: Sendable {
    public let url: URL
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The repository and the shared test data (`<repo>/../shared/data`), located from this file.
public enum SharedData {
    /// The repository root.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/data` beside the repository.
    public static let root = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    /// Real photos with faces.
    public static let faces = root.appendingPathComponent("faces")
    /// A real photo without metadata beyond JFIF.
    public static var photo: URL { faces.appendingPathComponent("2008_001009.jpg") }
}
