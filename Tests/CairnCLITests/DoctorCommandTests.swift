import CairnCLI
import Foundation
import Testing

@Test func doctorReportsEveryNativeLibraryAndTheModelWithItsLicence() throws {
    let run = cairn("--data-dir", "/nonexistent/cairn-vault", "doctor", "--json")
    #expect(run.status == 0)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let components = try #require(json["components"] as? [[String: Any]])
    let names = components.compactMap { $0["name"] as? String }
    for name in [
        "SQLite", "libsodium", "libvips", "libheif", "libjpeg-turbo", "libmicrohttpd", "GnuTLS", "libqrencode", "dlib", "Face landmark model",
    ] {
        #expect(names.contains(name), "doctor lists \(name)")
    }
    let model = try #require(components.first { $0["name"] as? String == "Face landmark model" })
    #expect((model["note"] as? String)?.contains("exclude commercial use") == true)
    let vault = try #require(json["vault"] as? [String: Any])
    #expect(vault["exists"] as? Bool == false)
    #expect(!FileManager.default.fileExists(atPath: "/nonexistent/cairn-vault"), "doctor never creates the vault")
}

@Test func doctorTextNamesEachLibraryOnItsOwnLine() {
    let run = cairn("doctor")
    #expect(run.status == 0)
    #expect(run.out.contains { $0.hasPrefix("SQLite ") && $0.contains("present") })
    #expect(run.out.last?.hasPrefix("Vault: ") == true)
}
