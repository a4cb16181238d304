import CairnApp
import CairnCore
import CairnTestSupport
import Encryption
import Foundation
import Storage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// kill -9 during `cairn backup create`, at moments from the key derivation to the final read-back: the vault is
/// untouched (every photo and row still there, no database copy left in it), and the backup's name holds either
/// nothing or a complete backup that verifies, never a partial file.
@Test func aBackupKilledAtAnyMomentLeavesTheVaultIntactAndNoPartialBackup() throws {
    let vault = try ServedVault(serve: false)
    for i in 0..<30 {
        let bytes = Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 7) &+ $0 >> 10) })
        try vault.app.photoStore.write(bytes, purpose: "skin", mediaType: .jpeg, width: 10, height: 10) { _ in }
    }
    let photosBefore = try vault.app.photoStore.photos(purpose: "skin")
    let secret = vault.scratch.file("pass.txt")
    try Data("a long backup passphrase\n".utf8).write(to: secret)
    for (round, delay) in [50_000, 300_000, 600_000, 900_000, 1_300_000].enumerated() {
        let target = vault.scratch.file("killed-\(round).cairnbackup").path
        let (process, _, _) = try CairnProcess.start([
            "--data-dir", vault.directory, "backup", "create", target,
            "--passphrase-file", secret.path,
        ])
        usleep(useconds_t(delay))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if FileManager.default.fileExists(atPath: target) {
            #expect(try BackupService.verify(at: target, passphrase: try Passphrase("a long backup passphrase")).photoCount == 30)
        }
        let reopened = try vault.openAgain()
        #expect(try reopened.photoStore.photos(purpose: "skin") == photosBefore)
        for photo in photosBefore { #expect(try reopened.photoStore.data(for: photo.id).count == 400_000) }
    }
    // A database copy may be left only if the kill hit the snapshot itself (milliseconds); the next backup or
    // "Delete all data" removes it. The photos folder never holds anything but photos.
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: vault.directory).filter { $0.hasPrefix(".backup-") }
    #expect(leftovers.count <= 1)
}
