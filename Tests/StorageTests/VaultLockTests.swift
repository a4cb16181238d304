import Foundation
import Storage
import Testing

@Test func aWriterThatLetsGoOfItsSharedHoldLetsAServerStartAndItsNextWriteIsRefused() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let reminders = try VaultLock(directory: dir)
    let server = try VaultLock(directory: dir)
    try reminders.ensureWriter()
    #expect(throws: VaultError.busyElsewhere) { try server.claimExclusive(patience: .milliseconds(50)) }
    reminders.releaseShared()
    try server.claimExclusive(patience: .milliseconds(50))
    #expect(server.isExclusive)
    server.releaseShared()
    #expect(server.isExclusive, "an exclusive hold is kept")
    #expect(throws: VaultError.servedElsewhere(pid: getpid())) { try reminders.ensureWriter() }
    server.release()
    try reminders.ensureWriter()
}
