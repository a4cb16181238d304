import CairnCLI
import Foundation
import Testing

/// Writes `text` as a passphrase file named `name` in `folder`.
private func secretFile(_ name: String, _ text: String, in folder: URL) throws -> String {
    let path = folder.appendingPathComponent(name).path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

@Test func theLockTurnsOnChangesAndTurnsOffFromTheCommandLineWithPassphraseFiles() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let first = try secretFile("first.txt", "first vault passphrase\n", in: dir)
        let second = try secretFile("second.txt", "second vault passphrase\n", in: dir)
        let wrong = try secretFile("wrong.txt", "first vault passphras\n", in: dir)
        #expect(cairn("--data-dir", vault, "regimen", "products", "add", "Vitamin D3", "--form", "softgel", "Vitamin D3=25 mcg").status == 0)

        let on = cairn("--data-dir", vault, "settings", "lock", "on", "--passphrase-file", first)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout.contains("The lock is on"))
        let database = try Data(contentsOf: URL(fileURLWithPath: vault).appendingPathComponent("cairn.sqlite"))
        #expect(database.range(of: Data("Vitamin D3".utf8)) == nil)
        #expect(database.range(of: Data("SQLite format 3".utf8)) == nil)

        // A command on the locked vault: without a passphrase (no terminal here) it stops with a clear message.
        let locked = cairn("--data-dir", vault, "regimen", "products", "list")
        #expect(locked.status == 1)
        #expect(
            locked.stderr
                == "cairn: This vault is locked: type its passphrase at a terminal, or pass --vault-passphrase-file FILE or --vault-passphrase-fd N. Nothing was changed."
        )
        let refused = cairn("--data-dir", vault, "--vault-passphrase-file", wrong, "regimen", "products", "list")
        #expect(refused.status == 1)
        #expect(refused.stderr == "cairn: That passphrase does not unlock this vault. Nothing was changed.")
        // The server opens on its unlock page (ReliabilityTests.LockedServeTests); a wrong passphrase file given to
        // it stops it before it listens.
        let serve = cairn("--data-dir", vault, "--vault-passphrase-file", wrong, "serve", "--port", "0")
        #expect(serve.status == 1)
        #expect(serve.stderr == refused.stderr)
        let listed = cairn("--data-dir", vault, "--vault-passphrase-file", first, "regimen", "products", "list")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Vitamin D3  (softgel, 1 ingredient)"), "\(listed.stdout)")
        #expect(cairn("--data-dir", vault, "settings", "lock", "on", "--passphrase-file", first).status == 1)

        #expect(
            cairn(
                "--data-dir", vault, "settings", "lock", "change", "--passphrase-file", wrong,
                "--new-passphrase-file", second
            ).status == 1)
        let changed = cairn(
            "--data-dir", vault, "settings", "lock", "change", "--passphrase-file", first,
            "--new-passphrase-file", second)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(cairn("--data-dir", vault, "--vault-passphrase-file", first, "regimen", "products", "list").status == 1)
        #expect(cairn("--data-dir", vault, "--vault-passphrase-file", second, "regimen", "products", "list").status == 0)

        #expect(cairn("--data-dir", vault, "settings", "lock", "off", "--passphrase-file", first).status == 1)
        let off = cairn("--data-dir", vault, "settings", "lock", "off", "--passphrase-file", second)
        #expect(off.status == 0, "\(off.stderr)")
        let plain = cairn("--data-dir", vault, "regimen", "products", "list")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("Vitamin D3"))
        #expect(cairn("--data-dir", vault, "settings", "lock", "off", "--passphrase-file", second).status == 1)
    }
}

@Test func aNewVaultPassphraseIsReadFromAFileOrATerminalNeverFromAnArgument() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let short = try secretFile("short.txt", "short\n", in: dir)
        let tooShort = cairn("--data-dir", vault, "settings", "lock", "on", "--passphrase-file", short)
        #expect(tooShort.status == 1)
        #expect(tooShort.stderr.contains("at least 8 characters"))
        // No terminal and no file: nothing to read the passphrase from.
        let none = cairn("--data-dir", vault, "settings", "lock", "on")
        #expect(none.status == 1)
        #expect(none.stderr.contains("type it at a terminal"))
        #expect(cairn("--data-dir", vault, "settings", "lock", "on", "a passphrase as an argument").status == 2)
        #expect(cairn("--data-dir", vault, "settings", "lock", "sideways").status == 2)
        #expect(cairn("--data-dir", vault, "settings", "lock", "on", "--new-passphrase-file", short).status == 2)
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: vault).appendingPathComponent("vault.header").path))
    }
}

@Test func atATerminalACommandThatAddedTheFirstRecordNotesTheMissingLockUntilNotNowAndScriptsNeverSeeIt() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let note = "This vault holds your records and has no passphrase."
        // An empty vault has nothing to protect; a script (no terminal) is never told.
        #expect(!cairn(["--data-dir", vault, "regimen", "products", "list"], answers: []).0.stderr.contains(note))
        let script = cairn("--data-dir", vault, "regimen", "products", "add", "Zinc", "--form", "capsule", "Zinc=10 mg")
        #expect(script.status == 0 && !script.stderr.contains(note))
        // At a terminal, after a command that changed data: the note, with why and both ways on.
        let (typed, _) = cairn(["--data-dir", vault, "regimen", "products", "add", "Iron", "--form", "tablet", "Iron=14 mg"], answers: [])
        #expect(typed.status == 0)
        #expect(
            typed.stderr.contains(note) && typed.stderr.contains("cairn settings lock on") && typed.stderr.contains("cairn settings lock not-now"))
        let (reading, _) = cairn(["--data-dir", vault, "regimen", "products", "list"], answers: [])
        #expect(!reading.stderr.contains(note), "a command that only reads says nothing")
        // Not now is remembered.
        let declined = cairn("--data-dir", vault, "settings", "lock", "not-now")
        #expect(declined.status == 0 && declined.stdout.contains("Cairn will not ask again"))
        let (after, _) = cairn(["--data-dir", vault, "regimen", "products", "add", "Copper", "--form", "tablet", "Copper=1 mg"], answers: [])
        #expect(after.status == 0 && !after.stderr.contains(note))
    }
}
