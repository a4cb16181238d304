import Foundation

/// A command-line tool that failed.
struct ToolFailure: Error, CustomStringConvertible {
    let tool: String
    let message: String
    var description: String { "\(tool): \(message)" }
}

/// Finds and runs the command-line tools the tests use to make fixtures (exiftool, vips).
enum Tools {
    /// The full path of `name` in the usual binary directories, or nil.
    static func path(of name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments` (no shell) and returns its standard output; throws on a non-zero exit.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(tool: (executable as NSString).lastPathComponent,
                              message: String(decoding: errorData, as: UTF8.self))
        }
        return data
    }

    /// Runs a tool found by name.
    @discardableResult
    static func run(tool name: String, _ arguments: [String]) throws -> Data {
        guard let executable = path(of: name) else { throw ToolFailure(tool: name, message: "not installed") }
        return try run(executable, arguments)
    }
}

/// A temporary directory, removed by `remove()`.
struct Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("photometadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Shared test data (/work/shared/data, located from this file: <root>/../shared/data).
enum SharedData {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let faces = root.deletingLastPathComponent().appendingPathComponent("shared/data/faces")
    /// A real photo without metadata beyond JFIF.
    static var photo: URL { faces.appendingPathComponent("2008_001009.jpg") }
}
