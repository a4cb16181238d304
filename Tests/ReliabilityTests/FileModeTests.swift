import CairnTestSupport
import Foundation
import Testing

/// Finding 6: every file Cairn writes is 0600 whatever the umask. The real `cairn` binary runs under `umask 000`
/// (a process of its own: changing this test process's umask would change every other test's files too).
private let cairnBinary = SharedData.repositoryRoot.appendingPathComponent(".build/debug/cairn")

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: cairnBinary.path), "build the cairn binary first"))
struct FileModeTests {
    static let binary = cairnBinary

    /// Runs `cairn ARGS` under `umask 000` (with `environment` added); returns its exit status and output.
    @discardableResult
    static func cairn(_ arguments: [String], vault: URL, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let quoted = ([binary.path, "--data-dir", vault.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        process.arguments = ["-c", "umask 000; exec " + quoted.joined(separator: " ")]
        process.environment = ["PATH": "/usr/bin:/bin", "OMP_THREAD_LIMIT": "1", "HOME": vault.path].merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static func mode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }

    /// Every file under `folder`, with its mode.
    static func modes(under folder: URL) -> [String: Int] {
        var found: [String: Int] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder.path)?.allObjects ?? [] {
            let url = folder.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found[path] = (try? mode(url)) ?? -1
            }
        }
        return found
    }

    @Test func smileExportsComparisonsLedgerExportsAndTheVaultAreAll0600UnderUmask000() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vault = scratch.file("vault")
        let out = scratch.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let faces = SharedData.faces
        let added = try Self.cairn(
            [
                "smile", "add", faces.appendingPathComponent("fr_obama.jpg").path,
                faces.appendingPathComponent("fr_biden.jpg").path, "--json",
            ], vault: vault)
        #expect(added.status == 0, "\(added.output)")
        let listed = try Self.cairn(["smile", "list", "--json"], vault: vault)
        let ids = listed.output.matches(of: /"id"\s*:\s*"([0-9a-f-]{36})"/).map { String($0.output.1) }
        try #require(ids.count >= 2, "\(listed.output)")

        #expect(try Self.cairn(["smile", "export", ids[0], "--out", out.appendingPathComponent("crop.jpg").path], vault: vault).status == 0)
        #expect(try Self.cairn(["smile", "compare", ids[0], ids[1], "--out", out.appendingPathComponent("pair.jpg").path], vault: vault).status == 0)
        // --force replaces an existing file, which keeps 0600 too (even one that was 0666 before).
        let loose = out.appendingPathComponent("loose.jpg")
        FileManager.default.createFile(atPath: loose.path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o666])
        #expect(try Self.cairn(["smile", "export", ids[0], "--out", loose.path, "--force"], vault: vault).status == 0)
        #expect(
            try Self.cairn(["regimen", "export", "--format", "csv", "--out", out.appendingPathComponent("log.csv").path], vault: vault).status == 0)
        #expect(
            try Self.cairn(["regimen", "export", "--format", "json", "--out", out.appendingPathComponent("log.json").path], vault: vault).status == 0)

        let written = Self.modes(under: out)
        #expect(written.keys.sorted() == ["crop.jpg", "log.csv", "log.json", "loose.jpg", "pair.jpg"])
        for (name, mode) in written { #expect(mode == 0o600, "\(name) is \(String(mode, radix: 8))") }
        let stored = Self.modes(under: vault)
        #expect(!stored.isEmpty)
        for (name, mode) in stored { #expect(mode == 0o600, "vault file \(name) is \(String(mode, radix: 8))") }
    }

    @Test func anExportNeverReplacesAFileWithoutForceAndLeavesNoTempFileBehind() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vault = scratch.file("vault")
        let out = scratch.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        _ = try Self.cairn(["smile", "add", SharedData.faces.appendingPathComponent("fr_obama.jpg").path], vault: vault)
        let id = try #require(
            try Self.cairn(["smile", "list", "--json"], vault: vault).output
                .firstMatch(of: /"id"\s*:\s*"([0-9a-f-]{36})"/).map { String($0.output.1) })
        let target = out.appendingPathComponent("mine.jpg")
        try Data("keep me".utf8).write(to: target)
        #expect(try Self.cairn(["smile", "export", id, "--out", target.path], vault: vault).status != 0)
        #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["mine.jpg"])
    }
}
