import CairnCLI
import Foundation

/// Runs `cairn` in process with a capturing console.
struct CLIRun {
    let status: Int32
    let out: [String]
    let err: [String]
    var stdout: String { out.joined(separator: "\n") }
    var stderr: String { err.joined(separator: "\n") }
}

final class Capture: @unchecked Sendable {
    var out: [String] = []
    var err: [String] = []
}

func cairn(_ words: String..., environment: [String: String] = [:]) -> CLIRun {
    cairn(words, environment: environment)
}

func cairn(_ words: [String], environment: [String: String] = [:]) -> CLIRun {
    let capture = Capture()
    let console = Console(out: { capture.out.append($0) }, err: { capture.err.append($0) })
    let status = CairnCommandLine.run(words, console: console, environment: environment)
    return CLIRun(status: status, out: capture.out, err: capture.err)
}

/// A fresh temporary folder, removed when the closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) rethrows -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-cli-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// Runs `cairn` in process as on a terminal: each question the command asks takes the next of `answers` (nil
/// once they run out, as when input ends).
func cairn(_ words: [String], environment: [String: String] = [:], answers: [String]) -> (CLIRun, questions: [String]) {
    let capture = Capture()
    var remaining = answers
    var questions: [String] = []
    let console = Console(
        out: { capture.out.append($0) }, err: { capture.err.append($0) },
        input: {
            questions.append(capture.err.last ?? "")
            return remaining.isEmpty ? nil : remaining.removeFirst()
        })
    let status = CairnCommandLine.run(words, console: console, environment: environment)
    return (CLIRun(status: status, out: capture.out, err: capture.err), questions)
}
