import CairnApp
import Encryption
import Foundation
import Storage
import Testing

@testable import WebApp

@Test func aBackupDownloadRefusesAShortOrMistypedPassphraseBesideItsFieldAndWritesNothing() throws {
    let site = try RegimenSite()
    #expect(site.get("/settings").bodyText.contains("href=\"/settings/backup\""))
    let short = site.post("/settings/backup", form: ["passphrase": "short", "passphrase_again": "short"])
    #expect(short.status == 400 && short.bodyText.contains("aria-describedby=\"passphrase-help passphrase-error\" aria-invalid=\"true\""))
    let mistyped = site.post("/settings/backup", form: ["passphrase": "correct horse battery", "passphrase_again": "correct horse battery!"])
    #expect(mistyped.status == 400 && mistyped.bodyText.contains("id=\"again-error\""))
    #expect(!mistyped.bodyText.contains("correct horse"), "a passphrase is never written back into the page")
    let files = try FileManager.default.contentsOfDirectory(atPath: site.directory.path)
    #expect(!files.contains { $0.hasSuffix(".cairnbackup") })
}

@Test func aBackupDownloadIsACheckedBackupOfThisVaultAndLeavesNoCopyInTheVault() throws {
    let site = try RegimenSite()
    _ = try site.addProduct()
    let response = site.post("/settings/backup", form: ["passphrase": "correct horse battery", "passphrase_again": "correct horse battery"])
    #expect(response.status == 200)
    #expect(response.header("Content-Disposition")?.hasPrefix("attachment; filename=\"cairn-backup-") == true)
    let fd = try #require(response.bodyFile)
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    let bytes = try handle.readToEnd() ?? Data()
    #expect(
        !(try FileManager.default.contentsOfDirectory(atPath: site.directory.path)).contains { $0.hasSuffix(".cairnbackup") },
        "the copy in the vault is gone once the download has it")
    let saved = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-download-\(UUID().uuidString).cairnbackup")
    defer { try? FileManager.default.removeItem(at: saved) }
    try bytes.write(to: saved)
    let summary = try VaultBackup.verify(fileAt: saved.path, passphrase: try Passphrase("correct horse battery"))
    #expect(summary.vaultID == Hex.encode(try site.cairn.vault.identifier()))
}
