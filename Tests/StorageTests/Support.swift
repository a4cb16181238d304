import CairnCore
import Foundation

@testable import Storage

/// A fresh directory under the system temp folder, removed by `remove()` (call it in a `defer`).
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A clock fixed at 2026-11-30T12:00:00Z.
let fixedClock = FixedClock(Date(timeIntervalSince1970: 1_796_040_000))

/// Every file (not directory) under `root`, as paths relative to it, sorted.
func filesUnder(_ root: URL) -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
    var files: [String] = []
    while let entry = walker.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(entry).path, isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            files.append(entry)
        }
    }
    return files.sorted()
}

/// Test processes: the parent re-launches this same test binary with `CAIRN_STORAGE_CHILD` set and a filter
/// naming `ChildProcessTests`, so the child runs real Storage code in a separate process.
enum ChildProcess {
    static let roleKey = "CAIRN_STORAGE_CHILD"
    static let directoryKey = "CAIRN_STORAGE_CHILD_DIR"

    /// Starts the child with `role` on `directory`; stdout and stderr go to files in `directory`.
    static func launch(role: String, directory: URL, extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "ChildProcessTests"]
        var environment = ProcessInfo.processInfo.environment
        environment[roleKey] = role
        environment[directoryKey] = directory.path
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let log = directory.appendingPathComponent("child-\(role)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Waits until `path` exists or the process ends; true when the file appeared.
    static func waitForFile(_ path: String, process: Process, attempts: Int = 3000) -> Bool {
        for _ in 0..<attempts {
            if FileManager.default.fileExists(atPath: path) { return true }
            if !process.isRunning { return FileManager.default.fileExists(atPath: path) }
            usleep(10_000)
        }
        return false
    }
}
