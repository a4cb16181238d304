import Foundation
import Testing

/// `scripts/desktop-entry.sh`, which `make install` uses to write the desktop entry that opens the app.
@Suite struct DesktopEntryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func entry(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = Self.root.appendingPathComponent("scripts/desktop-entry.sh")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func theEntryStartsTheAppAndOpensItWithEveryPathQuoted() throws {
        let plain = try entry("/home/me/.local/bin/cairn")
        #expect(plain.contains("\nExec=\"/home/me/.local/bin/cairn\" serve --open --port 0\n"))
        #expect(plain.hasPrefix("[Desktop Entry]\nType=Application\nName=Cairn\n") && plain.contains("\nTerminal=false\n"))
        let odd = try entry("/home/me/my apps/cairn", "/home/me/vault \"one\" $HOME 100%")
        #expect(odd.contains(#"Exec="/home/me/my apps/cairn" --data-dir "/home/me/vault \"one\" \$HOME 100%%" serve --open --port 0"#))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/desktop-file-validate")))
    func theEntryIsValidForTheDesktop() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-\(UUID().uuidString).desktop")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(try entry("/home/me/my apps/cairn", "/home/me/vault").utf8).write(to: file)
        let validate = Process()
        validate.executableURL = URL(fileURLWithPath: "/usr/bin/desktop-file-validate")
        validate.arguments = [file.path]
        try validate.run()
        validate.waitUntilExit()
        #expect(validate.terminationStatus == 0)
    }
}
