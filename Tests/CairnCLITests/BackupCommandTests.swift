import CairnCLI
import Foundation
import Testing

/// Writes `text` as a 0600 passphrase file in `folder`.
private func passphraseFile(_ text: String, in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("passphrase.txt").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

@Test func aBackupMadeWithAPassphraseFileVerifiesAndRestoresIntoAnEmptyFolderOnly() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let secret = try passphraseFile("a long backup passphrase\n", in: dir)
        let backup = dir.appendingPathComponent("b.cairnbackup").path
        let created = cairn("--data-dir", vault, "backup", "create", backup, "--passphrase-file", secret)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("Backup written and verified"))

        // The passphrase through a file descriptor, as a script would pass it.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = "a long backup passphrase\n".withCString { write(fds[1], $0, strlen($0)) }
        close(fds[1])
        let verified = cairn("backup", "verify", backup, "--passphrase-fd", String(fds[0]))
        close(fds[0])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("complete and intact"))

        let restored = cairn(
            "--data-dir", dir.appendingPathComponent("restored").path, "backup", "restore", backup,
            "--passphrase-file", secret)
        #expect(restored.status == 0, "\(restored.stderr)")
        let again = cairn("--data-dir", vault, "backup", "restore", backup, "--passphrase-file", secret)
        #expect(again.status == 1)
        #expect(again.stderr == "cairn: The folder to restore into is not empty. Restore into a new or empty folder; nothing was changed.")
    }
}

@Test func aWrongPassphraseIsExitOneWithAPlainSentence() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let backup = dir.appendingPathComponent("b.cairnbackup").path
        #expect(
            cairn("--data-dir", vault, "backup", "create", backup, "--passphrase-file", try passphraseFile("a long backup passphrase", in: dir))
                .status == 0)
        let wrong = cairn("backup", "verify", backup, "--passphrase-file", try passphraseFile("another passphrase", in: dir))
        #expect(wrong.status == 1)
        #expect(wrong.stderr == "cairn: The passphrase is not right for this file.")
    }
}

@Test func withoutATerminalOrAFileThereIsNoPassphraseAndNothingIsWritten() throws {
    try withTemporaryDirectory { dir in
        let backup = dir.appendingPathComponent("b.cairnbackup").path
        let run = cairn("--data-dir", dir.appendingPathComponent("vault").path, "backup", "create", backup)
        #expect(run.status == 1)
        #expect(run.stderr.contains("A passphrase is needed: type it at a terminal, or pass --passphrase-file FILE or --passphrase-fd N."))
        #expect(!FileManager.default.fileExists(atPath: backup))
    }
}

@Test func restoreNeedsAnExplicitFolderAndVerifyRefusesAFileThatIsNotABackup() throws {
    try withTemporaryDirectory { dir in
        let notBackup = dir.appendingPathComponent("photo.jpg")
        try Data(repeating: 0xff, count: 400).write(to: notBackup)
        let restore = cairn("backup", "restore", notBackup.path)
        #expect(restore.status == 2)
        let verify = cairn("backup", "verify", notBackup.path)
        #expect(verify.status == 1)
        #expect(verify.stderr == "cairn: This is not a Cairn encrypted file.")
        #expect(cairn("backup", "create", "x", "--passphrase-file", "a", "--passphrase-fd", "3").status == 2)
    }
}
