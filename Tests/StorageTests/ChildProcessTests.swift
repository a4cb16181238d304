import CairnCore
import Encryption
import Foundation
import Testing

@testable import Storage

/// Entry points for child processes started by other tests (see `ChildProcess`). Disabled unless the
/// parent set `CAIRN_STORAGE_CHILD`, so a normal run skips them.
@Suite(.enabled(if: ProcessInfo.processInfo.environment[ChildProcess.roleKey] != nil))
struct ChildProcessTests {
    @Test func runChildRole() throws {
        let environment = ProcessInfo.processInfo.environment
        let role = try #require(environment[ChildProcess.roleKey])
        let directory = URL(fileURLWithPath: try #require(environment[ChildProcess.directoryKey]))
        switch role {
        case "checkins":
            let database = try Database(path: directory.appendingPathComponent("shared.sqlite").path)
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("ready").path, contents: Data())
            while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("go").path) { usleep(1000) }
            let landed = try insertCheckins(database: database, writer: try #require(environment["CAIRN_WRITER"]))
            try String(landed).write(to: directory.appendingPathComponent("child-landed"), atomically: true, encoding: .utf8)
        case "open-vault":
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("ready").path, contents: Data())
            while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("go").path) { usleep(100) }
            let database = try Vault(directory: directory.appendingPathComponent("vault")).openDatabase()
            database.close()
        case "open-close":
            // Opens the shared database, reads, closes: the last connection to close removes the WAL.
            let database = try Database(path: directory.appendingPathComponent("shared.sqlite").path)
            _ = try database.read { try $0.scalar("SELECT count(*) FROM t", as: Int.self) }
            database.close()
        case "crash":
            // Writes a photo and stops for good at the named step; the parent kills this process there.
            let stage = try #require(PhotoWriteStage(rawValue: environment["CAIRN_CRASH_STAGE"] ?? ""))
            let vault = try Vault(directory: directory.appendingPathComponent("vault"))
            let database = try vault.openDatabase()
            let marker = directory.appendingPathComponent("reached").path
            let store = PhotoFileStore(vault: vault, database: database, clock: SystemClock()) { reached in
                guard reached == stage else { return }
                _ = FileManager.default.createFile(atPath: marker, contents: Data())
                while true { sleep(60) }
            }
            try store.write(Data(repeating: 7, count: 100_000), purpose: "skin", mediaType: .jpeg, width: 10, height: 10) { _ in }
            Issue.record("the write finished although the parent should have killed this process")
        case "lock-change":
            // Turns the lock on or off (CAIRN_LOCK_TO) and stops for good at CAIRN_CRASH_STAGE, if named; the
            // parent kills this process there (or at a moment of its choosing, after "started").
            let stage = environment["CAIRN_CRASH_STAGE"].flatMap(LockChangeStage.init(rawValue:))
            let vault = try Vault(directory: directory.appendingPathComponent("vault"))
            let passphrase = try Passphrase(vaultPassphraseText)
            let reached: (LockChangeStage) -> Void = { step in
                guard step == stage else { return }
                _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("reached").path, contents: Data())
                while true { sleep(60) }
            }
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("started").path, contents: Data())
            if environment["CAIRN_LOCK_TO"] == "off" {
                let database = try vault.openDatabase(key: try vault.unlock(passphrase: passphrase))
                try vault.turnLockOff(database: database, passphrase: passphrase, reached: reached).close()
            } else {
                try vault.turnLockOn(
                    database: try vault.openDatabase(), passphrase: passphrase,
                    keyDerivation: cheapDerivation(), reached: reached
                ).close()
            }
            if stage != nil { Issue.record("the lock change finished although the parent should have killed this process") }
            while true { sleep(60) }
        case "backup":
            // Backs up the locked vault at `vault` into `backup.partial` and stops for good once the sink has been
            // handed CAIRN_STOP_AFTER bytes; the parent kills this process there.
            let stopAfter = Int(environment["CAIRN_STOP_AFTER"] ?? "") ?? Int.max
            let vault = try Vault(directory: directory.appendingPathComponent("vault"))
            let database = try vault.openDatabase(key: try vault.unlock(passphrase: Passphrase(vaultPassphraseText)))
            let out = try #require(FileHandle(forWritingAtPath: directory.appendingPathComponent("backup.partial").path))
            var written = 0
            _ = try VaultBackup.write(
                vault: vault, database: database, passphrase: Passphrase("a backup passphrase"),
                createdAt: Date(), keyDerivation: cheapDerivation()
            ) { bytes in
                out.write(Data(bytes))
                written += bytes.count
                guard written >= stopAfter else { return }
                _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("reached").path, contents: Data())
                while true { sleep(60) }
            }
            Issue.record("the backup finished although the parent should have killed this process")
        default:
            Issue.record("unknown child role \(role)")
        }
    }
}
