import CairnApp
import CairnCLI
import CairnCore
import Foundation
import Storage
import Testing

/// Finding 2: a command changed the vault under a running server, which kept showing (and writing to) the old
/// database. A server now owns the vault for writes; other processes refuse clearly and only read.
@Suite struct VaultOwnershipTests {
    @Test func whileAServerOwnsTheVaultAnotherProcessReadsButRefusesToWriteNamingTheServer() throws {
        let served = try ServedVault()
        try served.app.skin.addArea(name: "Left forearm")
        let other = try served.openAgain()
        #expect(try other.skin.areas().map(\.area.name) == ["Left forearm"])
        #expect(throws: VaultError.servedElsewhere(pid: getpid())) { try other.skin.addArea(name: "Right knee") }
        #expect(throws: VaultError.servedElsewhere(pid: getpid())) { try other.settings.deleteAllData() }
        #expect(try served.app.skin.areas().map(\.area.name) == ["Left forearm"])
        let message = VaultError.servedElsewhere(pid: 4242).userMessage
        #expect(message.contains("cairn serve (process 4242)"))
        #expect(message.contains("Nothing was changed."))

        served.server?.stop()
        served.app.releaseVault()
        try other.skin.addArea(name: "Right knee")
        #expect(try served.app.skin.areas().count == 2)
    }

    @Test func theCommandLineSaysWhyItRefusesAndExitsOne() throws {
        let served = try ServedVault()
        var out: [String] = []
        var err: [String] = []
        let console = Console(out: { out.append($0) }, err: { err.append($0) })
        let code = CairnCommandLine.run(
            ["--data-dir", served.directory, "skin", "add-area", "Right knee"],
            console: console, environment: [:])
        #expect(code == 1)
        #expect(err.joined().contains("cairn serve (process \(getpid())) is using this vault"))
        #expect(try served.app.skin.areas().isEmpty)
        // A reading command still works beside the server.
        out = []
        #expect(CairnCommandLine.run(["--data-dir", served.directory, "skin", "areas"], console: console, environment: [:]) == 0)
    }

    @Test func aSecondServerCannotTakeAVaultThatIsServed() throws {
        let served = try ServedVault()
        let other = try served.openAgain()
        #expect(throws: VaultError.servedElsewhere(pid: getpid())) { try other.claimVaultForServing() }
    }

    @Test func commandsThatWriteShareTheVaultButKeepAServerFromStartingUnderThem() throws {
        let vault = try ServedVault(serve: false)
        let first = try vault.openAgain()
        let second = try vault.openAgain()
        try first.skin.addArea(name: "Left forearm")
        try second.skin.addArea(name: "Right knee")
        // Both writes landed in the one vault, and each process sees the other's.
        #expect(try first.skin.areas().map(\.area.name).sorted() == ["Left forearm", "Right knee"])
        #expect(try second.skin.areas().map(\.area.name).sorted() == ["Left forearm", "Right knee"])
        #expect(throws: VaultError.busyElsewhere) { try vault.app.database.vaultLock?.claimExclusive(patience: .milliseconds(50)) }
    }

    @Test func openingAVaultToReadNeverTakesTheWriteLock() throws {
        let vault = try ServedVault(serve: false)
        try vault.app.skin.addArea(name: "Left forearm")
        // Another process holds SQLite's write lock (a long transaction); opening and reading must not wait for it.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writerEnded = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var stillHeldWhenReadEnded = false
        let writer = Thread {
            _ = try? vault.app.database.write { db in
                try db.execute("INSERT INTO settings(key, value) VALUES ('held', 'yes')")
                holding.signal()
                // Held until the reader is done (a reader that waited for the lock would only go on after this).
                stillHeldWhenReadEnded = release.wait(timeout: .now() + 30) == .success
            }
            writerEnded.signal()
        }
        writer.start()
        #expect(holding.wait(timeout: .now() + 5) == .success)
        let reader = try vault.openAgain()
        let areas = try reader.skin.areas()
        release.signal()
        #expect(writerEnded.wait(timeout: .now() + 60) == .success)
        #expect(areas.map(\.area.name) == ["Left forearm"])
        #expect(stillHeldWhenReadEnded, "opening and reading ended while the write lock was still held")
    }
}
