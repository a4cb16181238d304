import Foundation
import Testing

/// `cairn serve --phone` in its own process, on 127.0.0.2 (loopback stands in for the home network): it prints the
/// phone's address and the certificate's fingerprint, no QR code when its output is not a terminal (the code carries
/// the pairing secret), serves TLS there, and nothing listens there once it stops.
@Test func servePhonePrintsThePhonesAddressWithoutTheQRCodeIntoAPipeAndStopsListeningWithTheServer() throws {
    let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-serve-phone-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: vault) }
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("cairn")
    let process = Process()
    process.executableURL = executable
    process.arguments = ["--data-dir", vault.path, "serve", "--port", "0", "--phone", "--phone-address", "127.0.0.2", "--phone-port", "0"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("Pair a phone from"), Date() < deadline {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        text += String(decoding: chunk, as: UTF8.self)
    }
    let phoneLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("Phone: https://127.0.0.2:") })
    #expect(text.contains("Certificate SHA-256 fingerprint: "))
    #expect(!text.contains("█") && !text.contains("#"), "no QR code and no pairing secret into a pipe")
    let address = String(phoneLine.dropFirst("Phone: ".count))

    func curl(_ url: String) throws -> Int32 {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sk", "--noproxy", "*", "--max-time", "5", "-o", "/dev/null", url + "pair"]
        curl.standardOutput = FileHandle.nullDevice
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        curl.waitUntilExit()
        return curl.terminationStatus
    }
    #expect(try curl(address) == 0, "TLS is served there")
    process.terminate()
    process.waitUntilExit()
    #expect(try curl(address) == 7, "nothing listens once the server stopped")
}
