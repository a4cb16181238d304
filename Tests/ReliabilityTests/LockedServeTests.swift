import CairnTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `cairn serve` on a vault with a lock, in its own process: it starts without the passphrase, shows the unlock
/// page, holds the vault meanwhile, and opens after the passphrase is typed there.
@Suite(.serialized) struct LockedServeTests {
    @Test func aLockedVaultIsServedOnItsUnlockPageAndOpensWithThePassphraseTypedThere() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-locked-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let vault = scratch.appendingPathComponent("vault").path
        let passphraseFile = scratch.appendingPathComponent("pass.txt")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try Data("a locked vault passphrase\n".utf8).write(to: passphraseFile)
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let (process, _, err) = try CairnProcess.start(["--data-dir", vault] + arguments)
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        #expect(try run(["regimen", "products", "add", "Magnesium", "--form", "capsule", "Magnesium=100 mg"]).0 == 0)
        #expect(try run(["settings", "lock", "on", "--passphrase-file", passphraseFile.path]).0 == 0)

        let (process, out, _) = try CairnProcess.start(["--data-dir", vault, "serve", "--port", "0"])
        defer {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        let (port, key) = try #require(LoopbackHTTP.login(readingFirstLineOf: out), "the login line")
        func send(_ method: String, _ target: String, form: [String: String]? = nil) throws -> RawResponse {
            try LoopbackHTTP.send(method, target, port: port, session: key, form: form)
        }

        #expect(try send("GET", "/regimen").headers("Location") == ["/unlock?next=/regimen"])
        let page = try send("GET", "/unlock")
        #expect(page.status == 200 && page.text.contains("Vault passphrase") && !page.text.contains("Magnesium"))
        let csrf = try #require(page.text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1
        // While locked the server still holds the vault: a command that would change it is refused.
        let (status, message) = try run([
            "--vault-passphrase-file", passphraseFile.path, "regimen", "products", "add", "Zinc",
            "--form", "capsule", "Zinc=10 mg",
        ])
        #expect(status == 1 && message.contains("cairn serve (process \(process.processIdentifier))"), "\(message)")

        let wrong = try send("POST", "/unlock", form: ["csrf": String(csrf), "passphrase": "not the passphrase"])
        #expect(wrong.status == 400 && wrong.text.contains("That passphrase does not unlock this vault."))
        #expect(try send("POST", "/unlock", form: ["csrf": String(csrf), "passphrase": "a locked vault passphrase"]).status == 429)
        Thread.sleep(forTimeInterval: 2.1)
        let opened = try send(
            "POST", "/unlock", form: ["csrf": String(csrf), "passphrase": "a locked vault passphrase", "next": "/regimen/products"])
        #expect(opened.status == 303 && opened.headers("Location") == ["/regimen/products"])
        let products = try send("GET", "/regimen/products")
        #expect(products.status == 200 && products.text.contains("Magnesium") && products.text.contains("id=\"lock-now\""))

        #expect(try send("POST", "/lock", form: ["csrf": String(csrf)]).headers("Location") == ["/unlock"])
        #expect(try send("GET", "/regimen/products").status == 303)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
