import CairnCLI
import Foundation
import Testing

@Test func helpListsEveryCommandAndExitsZero() {
    let run = cairn("--help")
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("Cairn: a private health journal. Everything stays on this computer."))
    for command in ["serve", "doctor", "inspect", "settings"] {
        #expect(run.stdout.contains("\n  \(command) "), "help lists \(command)")
    }
    #expect(run.stdout.contains("Exit codes: 0 done; 1 a problem with the input or the vault (said on stderr); 2 usage error."))
    #expect(run.err.isEmpty)
}

@Test func bareCairnPrintsTheSameHelp() {
    #expect(cairn([]).stdout == cairn("--help").stdout)
    #expect(cairn([]).status == 0)
}

@Test func versionPrintsTheVersion() {
    #expect(cairn("--version").stdout == "cairn \(CairnCommandLine.version)")
}

@Test func unknownCommandIsAUsageErrorWithAHint() {
    let run = cairn("frobnicate")
    #expect(run.status == 2)
    #expect(run.err == ["cairn: Unknown command 'frobnicate'.", "Run 'cairn --help' for usage."])
    #expect(run.out.isEmpty)
}

@Test func unknownOptionOfACommandIsAUsageError() {
    let run = cairn("doctor", "--colour")
    #expect(run.status == 2)
    #expect(run.err.first == "cairn doctor: Unknown option --colour.")
}

@Test func everyCommandHasHelpWithItsUsageLine() {
    for path in [["serve"], ["doctor"], ["inspect"], ["settings", "delete-all-data"]] {
        let run = cairn(path + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Usage: cairn \(path.joined(separator: " "))"), "help for \(path)")
    }
}

@Test func aGroupWithoutASubcommandShowsItsCommandsAsAUsageError() {
    let run = cairn("settings")
    #expect(run.status == 2)
    #expect(run.stderr.contains("delete-all-data"))
}

@Test func dataDirNeedsAValue() {
    let run = cairn("doctor", "--data-dir")
    #expect(run.status == 2)
    #expect(run.err.first == "cairn: --data-dir needs a folder.")
}

@Test func serveRefusesANonLoopbackHostBeforeOpeningAnything() {
    withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let run = cairn("--data-dir", vault, "serve", "--host", "0.0.0.0")
        #expect(run.status == 2)
        #expect(run.err.first == "cairn serve: Cairn only serves to this computer: --host must be 127.0.0.1 or localhost.")
        #expect(!FileManager.default.fileExists(atPath: vault), "validation happens before the vault is created")
    }
}

@Test func serveRefusesAPublicPhoneAddressAndMinutesOutOfRangeBeforeOpeningAnything() {
    withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let run = cairn("--data-dir", vault, "serve", "--phone", "--phone-address", "8.8.8.8")
        #expect(run.status == 2)
        #expect(run.err.first?.hasPrefix("cairn serve: Cairn never opens the phone session on 8.8.8.8: only on a private address") == true)
        #expect(
            cairn("--data-dir", vault, "serve", "--phone-minutes", "61").err.first
                == "cairn serve: --phone-minutes takes a whole number from 1 to 60.")
        #expect(cairn("--data-dir", vault, "serve", "--phone-address", "phone.local").status == 2)
        #expect(!FileManager.default.fileExists(atPath: vault), "validation happens before the vault is created")
    }
}

@Test func servePortMustBeAPortNumber() {
    let run = cairn("serve", "--port", "70000")
    #expect(run.status == 2)
    #expect(run.err.first == "cairn serve: --port takes a whole number from 0 to 65535.")
}

@Test func deleteAllDataWithoutYesIsRefusedAndTouchesNothing() {
    withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        let run = cairn("--data-dir", vault, "settings", "delete-all-data")
        #expect(run.status == 2)
        #expect(run.stderr.contains("add --yes to confirm"))
        #expect(!FileManager.default.fileExists(atPath: vault))
    }
}

@Test func scanConfirmNeedsANameAndAFormBeforeReadingAnything() {
    let noName = cairn("regimen", "scan", "label.jpg", "--confirm", "--form", "softgel")
    #expect(noName.status == 2)
    #expect(noName.err.first == "cairn regimen scan: --confirm needs --name.")
    let stray = cairn("regimen", "scan", "label.jpg", "--name", "X")
    #expect(stray.status == 2)
    #expect(
        stray.err.first == "cairn regimen scan: --name, --form, --brand, --accept, --leave-out, --use-database and --keep-read go with --confirm.")
}

@Test func aReadingCommandLeavesHousekeepingToTheNextCommandThatWrites() throws {
    try withTemporaryDirectory { dir in
        let vault = dir.appendingPathComponent("vault").path
        #expect(cairn("--data-dir", vault, "skin", "areas").status == 0)
        // What an interrupted write leaves: a temp file in photos/.
        let leftover = dir.appendingPathComponent("vault/photos/.tmp-crashed")
        try Data([0xFF, 0xD8, 0xFF]).write(to: leftover)
        for words in [["skin", "areas"], ["regimen", "today"], ["regimen", "ledger"]] {
            #expect(cairn(["--data-dir", vault] + words).status == 0)
            #expect(FileManager.default.fileExists(atPath: leftover.path), "\(words.joined(separator: " ")) swept")
        }
        #expect(cairn("--data-dir", vault, "skin", "add-area", "Left forearm").status == 0)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }
}
