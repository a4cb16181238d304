import CairnCLI
import CairnCore
import Foundation
import Regimen
import Testing

/// A vault and a fixed clock (CAIRN_NOW, TZ) for `cairn regimen` calls.
private struct RegimenCLI {
    let vault: String
    var environment: [String: String]

    init(_ dir: URL, now: String = "2026-03-10T12:00:00Z", zone: String = "Europe/Berlin") {
        vault = dir.appendingPathComponent("vault").path
        environment = ["CAIRN_NOW": now, "TZ": zone]
    }

    func json(_ words: String...) throws -> Any {
        let result = cairn(["--data-dir", vault, "regimen"] + words + ["--json"], environment: environment)
        #expect(result.status == 0, "\(words): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// Adds Vitamin D3 and a daily 08:00/13:00/21:00 schedule from 2026-03-01; returns the schedule id.
    func setUpVitaminD() throws -> String {
        #expect(run("products", "add", "Vitamin D3", "--form", "softgel", "Vitamin D3=25 mcg").status == 0)
        let schedule = try json("schedules", "add", "Vitamin D3", "--times", "08:00,13:00,21:00", "--start", "2026-03-01") as? [String: Any]
        return try #require(schedule?["scheduleID"] as? String)
    }

    func today() throws -> [String: Any] { try #require(try json("today") as? [String: Any]) }
}

private func doseIDs(_ list: Any?) -> [String] { (list as? [[String: Any]] ?? []).compactMap { $0["doseID"] as? String } }

@Test func regimenHelpListsItsCommands() {
    let run = cairn("regimen", "--help")
    #expect(run.status == 0)
    for command in ["products", "schedules", "today", "take", "skip", "correct", "ledger", "export", "exposure", "supply"] {
        #expect(run.stdout.contains("\n  \(command) "), "lists \(command)")
    }
    #expect(cairn("--help").stdout.contains("\n  regimen "))
}

@Test func aScheduleWithAZoneKeepsItsTimesOnThatClockAndSaysSo() throws {
    try withTemporaryDirectory { dir in
        let cli = RegimenCLI(dir, now: "2026-03-10T06:00:00Z", zone: "Europe/Paris")  // 07:00 in Paris
        #expect(cli.run("products", "add", "Vitamin D3", "--form", "softgel", "Vitamin D3=25 mcg").status == 0)
        let added = cli.run("schedules", "add", "Vitamin D3", "--times", "08:00", "--start", "2026-03-01", "--zone", "america/new_york")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("at 08:00 America/New_York time, daily, from 2026-03-01"), "\(added.stdout)")
        let today = try cli.today()
        let dose = try #require((today["doses"] as? [[String: Any]])?.first)
        #expect(dose["time"] as? String == "13:00" && dose["timeZone"] as? String == "America/New_York", "\(dose)")
        #expect(dose["dueAt"] as? String == "2026-03-10T12:00:00Z")
        let text = cli.run("today")
        #expect(text.stdout.contains("13:00 (08:00 America/New_York)"), "\(text.stdout)")
        let schedule = try #require((try cli.json("schedules", "list") as? [[String: Any]])?.first)
        let id = try #require(schedule["scheduleID"] as? String)
        let back = try #require(try cli.json("schedules", "edit", id, "--zone", "local", "--from", "2026-03-11") as? [String: Any])
        #expect(back["timeZone"] == nil || back["timeZone"] is NSNull, "local: the times follow the person again")
    }
}

@Test func everyRegimenCommandHasHelpWithItsUsageLine() {
    let paths = [
        ["products", "list"], ["products", "add"], ["products", "show"], ["products", "edit"], ["schedules", "list"],
        ["schedules", "add"], ["schedules", "edit"], ["schedules", "pause"], ["schedules", "resume"], ["schedules", "stop"],
        ["schedules", "history"], ["today"], ["take"], ["skip"], ["correct"], ["ledger"], ["export"], ["exposure"],
        ["supply", "set"], ["supply", "list"],
    ]
    for path in paths {
        let run = cairn(["regimen"] + path + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Usage: cairn regimen \(path.joined(separator: " "))"), "help for \(path)")
    }
    #expect(cairn("regimen", "today", "--help").stdout.contains("each dose of a day exists once"))
    let allHelp = paths.map { cairn(["regimen"] + $0 + ["--help"]).stdout }.joined(separator: "\n") + cairn("regimen", "--help").stdout
    #expect(ProductWording.bannedWords(in: allHelp).isEmpty, "\(ProductWording.bannedWords(in: allHelp))")
}

@Test func usageMistakesExitTwoBeforeTheVaultIsOpened() {
    withTemporaryDirectory { dir in
        let cli = RegimenCLI(dir)
        let cases: [([String], String)] = [
            (["products", "add", "X"], "--form is required."),
            (["products", "add", "X", "--form", "pill"], "--form: A product's form is one of: capsule, softgel,"),
            (["schedules", "add", "X", "--times", "25:00"], "--times: A time of day must be written as HH:MM"),
            (["schedules", "add", "X", "--days", "someday"], "--days: Choose how often: daily, every N days (every:N)"),
            (["schedules", "add", "X", "--days", "every:0"], "--days: Every N days takes a whole number of days, from 1 to 366."),
            (["schedules", "add", "X", "--servings", "two"], "--servings: Servings must be a number, like 1 or 0.5."),
            (["schedules", "add", "X", "--start", "March"], "--start: A date must be written as YYYY-MM-DD"),
            (["schedules", "add", "X", "--times", "08:00", "--zone", "Mars/Base"], "--zone: That is not a time zone Cairn knows."),
            (["take"], "Missing DOSE-ID."),
            (["take", "--extra", "X", "--as-needed", "Y"], "not both"),
            (["correct", "r"], "--status takes taken or skipped."),
            (["export"], "--format takes csv or json."),
            (["ledger", "--limit", "0"], "--limit takes a whole number"),
            (["schedules", "edit", "s"], "Nothing to change"),
        ]
        for (words, message) in cases {
            let run = cli.run(words)
            #expect(run.status == 2, "\(words)")
            #expect(run.stderr.contains(message), "\(words): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.vault), "validation happens before the vault is created")
    }
}

extension RegimenCLI {
    func run(_ words: [String]) -> CLIRun { cairn(["--data-dir", vault, "regimen"] + words, environment: environment) }
    func run(_ words: String...) -> CLIRun { run(words) }
}

@Test func badProductInputIsRefusedWithAClearErrorAndNothingIsSaved() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        let cases: [(String, String)] = [
            ("Zinc=25 zz", "The unit is not one Cairn knows."),
            ("Zinc=-5 mg", "An amount cannot be negative."),
            ("Zinc=5 kg", "more than any single serving can hold"),
            ("Zinc=6 g", "One capsule cannot hold this much"),
            ("Vitamin D3=500 mg", "far beyond any product sold"),
        ]
        for (row, message) in cases {
            let run = cli.run("products", "add", "Zinc", "--form", "capsule", row)
            #expect(run.status == 1, "\(row)")
            #expect(run.stderr.contains(message), "\(row): \(run.stderr)")
            #expect(!run.stderr.contains("Zinc"), "messages never repeat what was typed")
        }
        #expect((try cli.json("products", "list") as? [Any])?.isEmpty == true)
    }
}

@Test func productsAreAddedShownListedAndEditedAsRevisions() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        let added = cli.run(
            "products", "add", "Magnesium", "--form", "capsule", "--serving", "2", "Magnesium glycinate=200 mg", "Zeolite", "--accept", "2")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Zeolite  (not in catalogue: check the name)"))
        let product = try #require(try cli.json("products", "show", "magnesium") as? [String: Any])
        let rows = product["ingredients"] as? [[String: Any]]
        #expect(rows?.first?["catalogueID"] as? String == "magnesium")
        #expect(rows?.first?["form"] as? String == "Magnesium glycinate")
        #expect(rows?.last?["inCatalogue"] as? Bool == false)
        #expect(cli.run("products", "edit", "Magnesium", "--name", "Magnesium 2").status == 0)
        let shown = cli.run("products", "show", "Magnesium 2")
        #expect(shown.stdout.contains("Revision 2 of 2"))
        #expect(shown.stdout.contains("Magnesium glycinate 200 mg"), "rows are kept when none are given")
        #expect(cli.run("products", "show", "Nope").status == 1)
    }
}

@Test func schedulesAreAddedChangedPausedAndListedWithTheirHistory() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        let schedule = try cli.setUpVitaminD()
        #expect(cli.run("schedules", "edit", schedule, "--times", "09:00", "--from", "2026-03-12").status == 0)
        let overlap = cli.run("schedules", "edit", schedule, "--times", "10:00", "--from", "2026-03-11")
        #expect(overlap.status == 1 && overlap.stderr.contains("revisions do not overlap"))
        #expect(cli.run("schedules", "pause", schedule, "--from", "2026-03-20").stdout.contains("is paused from 2026-03-20"))
        let history = try #require(try cli.json("schedules", "history", schedule) as? [[String: Any]])
        #expect(history.map { $0["state"] as? String } == ["active", "active", "paused"])
        #expect(history.map { $0["times"] as? [String] } == [["08:00", "13:00", "21:00"], ["09:00"], ["09:00"]])
        let ends = cli.run("schedules", "add", "Vitamin D3", "--times", "08:00", "--start", "2026-03-10", "--end", "2026-03-09")
        #expect(ends.status == 1 && ends.stderr.contains("ends before it starts"))
        #expect((try cli.json("schedules", "list") as? [Any])?.count == 1)
    }
}

@Test func todayTakeSkipCorrectLedgerAndExportWorkTogether() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        _ = try cli.setUpVitaminD()
        var today = try cli.today()
        #expect(today["day"] as? String == "2026-03-10" && today["timeZone"] as? String == "Europe/Berlin")
        let batch = doseIDs(today["currentBatch"])
        #expect(batch.count == 1 && batch[0].hasSuffix("_2026-03-10_1300"), "13:00 in Berlin is due at 12:00 UTC")
        let take = cli.run("take", batch[0])
        #expect(take.status == 0 && take.stdout.hasPrefix("Logged as taken: Vitamin D3, 13:00 on 2026-03-10"))
        let again = cli.run("take", batch[0])
        #expect(again.status == 0 && again.stdout.hasPrefix("Already logged as taken"))
        let morning = doseIDs(today["doses"])[0]
        #expect(cli.run("skip", morning, "--at", "08:30").status == 0)
        today = try cli.today()
        #expect((today["doses"] as? [[String: Any]])?.map { $0["state"] as? String } == ["skipped", "taken", "not-logged"])
        let missing = cli.run("take", "nope_2026-03-10_0800")
        #expect(missing.status == 1 && missing.stderr.contains("There is no scheduled dose with that id."))

        let ledger = try #require(try cli.json("ledger") as? [String: Any])
        let entries = try #require(ledger["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        let skipped = try #require(entries.first { $0["status"] as? String == "skipped" })
        #expect(skipped["takenAt"] as? String == "2026-03-10T07:30:00Z", "08:30 on the dose's day in Berlin")
        let record = try #require(skipped["id"] as? String)
        let corrected = cli.run("correct", record, "--status", "taken")
        #expect(corrected.status == 0 && corrected.stdout.contains("replaces \(record)"))
        #expect(cli.run("correct", record, "--status", "taken").stderr.contains("already corrected"))
        #expect(cli.run("ledger").stdout.contains("(replaced by "))

        let csv = cli.run("export", "--format", "csv")
        #expect(csv.status == 0)
        #expect(csv.stdout.components(separatedBy: "\r\n").count == 4, "header and three records")
        let file = dir.appendingPathComponent("log.json").path
        #expect(cli.run("export", "--format", "json", "--out", file).status == 0)
        let exported = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [[String: Any]]
        #expect(exported?.count == 3)
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
    }
}

@Test func extraAndAsNeededDosesCountDownTheSupply() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        #expect(cli.run("products", "add", "Mag", "--form", "capsule", "--serving", "2", "Magnesium=200 mg").status == 0)
        let asNeeded = try #require((try cli.json("schedules", "add", "Mag", "--days", "as-needed") as? [String: Any])?["scheduleID"] as? String)
        #expect(cli.run("supply", "set", "Mag", "30").status == 0)
        #expect(cli.run("take", "--extra", "Mag", "--servings", "1.5").status == 0)
        #expect(cli.run("take", "--as-needed", asNeeded).status == 0)
        #expect(cli.run("supply", "list").stdout == "Mag: 25 capsules on hand.")
        let supply = try #require((try cli.json("supply", "list", "--json") as? [[String: Any]])?.first)
        #expect(supply["productName"] as? String == "Mag" && supply["onHand"] as? String == "25" && supply["counts"] as? String == "capsules")
        let exposure = try #require(try cli.json("exposure") as? [String: Any])
        #expect((exposure["ingredients"] as? [[String: Any]])?.first?["amount"] as? [String: String] == ["value": "500", "unit": "mg"])
        #expect(cli.run("supply", "set", "Mag", "-3").status == 2)
    }
}

// MARK: two real processes

private let cairnBinary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".build/debug/cairn")

private func spawn(_ arguments: [String], environment: [String: String]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = cairnBinary
    process.arguments = arguments
    process.environment = environment.merging(["OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"]) { a, _ in a }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    return (process, pipe)
}

@Test func twoProcessesTakingTheSameDoseAtTheSameMomentWriteOneRecord() throws {
    try #require(FileManager.default.isExecutableFile(atPath: cairnBinary.path), "build the cairn binary first: swift build")
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir, now: "2026-03-10T22:00:00Z")
        _ = try cli.setUpVitaminD()
        var doses: [String] = []
        for offset in 0..<8 {
            let day = "2026-03-\(String(format: "%02d", 10 - offset))"
            let today = try #require(try RegimenCLI(dir, now: "\(day)T22:00:00Z").today())
            doses += doseIDs(today["doses"]).prefix(offset < 4 ? 3 : 1)
        }
        #expect(doses.count == 16)
        for dose in doses {
            let pair = try (0..<2).map { _ in try spawn(["--data-dir", cli.vault, "regimen", "take", dose], environment: cli.environment) }
            let outputs = pair.map { process, pipe -> (Int32, String) in
                let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, text)
            }
            #expect(outputs.allSatisfy { $0.0 == 0 }, "\(outputs.map(\.1))")
            #expect(outputs.filter { $0.1.hasPrefix("Logged as taken") }.count == 1, "\(outputs.map(\.1))")
            #expect(outputs.filter { $0.1.hasPrefix("Already logged as taken") }.count == 1, "\(outputs.map(\.1))")
        }
        let ledger = try #require(try cli.json("ledger", "--limit", "1000") as? [String: Any])
        let logged = ((ledger["entries"] as? [[String: Any]]) ?? []).compactMap { $0["doseID"] as? String }
        #expect(logged.count == doses.count)
        #expect(Set(logged) == Set(doses), "exactly one record for each dose")
    }
}

@Test func anEditKeepsTheFormAndDailyValueOfARowTypedWithoutThemAndSavesNothingWhenNothingChanged() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        #expect(cli.run("products", "add", "Night", "--form", "capsule", "Magnesium (as magnesium glycinate)=200 mg, 48% DV").status == 0)
        let same = cli.run("products", "edit", "Night", "Magnesium=200 mg")
        #expect(same.status == 0 && same.stdout.contains("Nothing changed: product"), "\(same.stdout)\(same.stderr)")
        let zinc = cli.run("products", "edit", "Night", "Magnesium=200 mg", "Zinc=10 mg")
        #expect(zinc.status == 0 && zinc.stdout.contains("Saved revision 2"), "\(zinc.stderr)")
        let rows = (try cli.json("products", "show", "Night") as? [String: Any])?["ingredients"] as? [[String: Any]]
        #expect(rows?.first?["form"] as? String == "magnesium glycinate")
        let shown = cli.run("products", "show", "Night")
        #expect(shown.stdout.contains("Revision 2 of 2"))
    }
}

@Test func aTypedProductWithSeveralMistakesNamesEveryOne() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        let run = cli.run("products", "add", " ", "--form", "capsule", "--serving", "two", "Zinc=5 zorks")
        #expect(run.status == 1)
        #expect(run.stderr.contains("  NAME: A product needs a name."), "\(run.stderr)")
        #expect(run.stderr.contains("  --serving: Write one serving as a number of units"))
        #expect(run.stderr.contains("  INGREDIENT row 1: The unit is not one Cairn knows."))
    }
}

@Test func takeForAPastDoseWithoutAtRecordsItsScheduledTimeAndSaysSo() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        _ = try cli.setUpVitaminD()
        let today = doseIDs(try cli.today()["doses"])[0]
        let yesterday = today.replacingOccurrences(of: "_2026-03-10_", with: "_2026-03-09_")
        let take = cli.run("take", yesterday)
        #expect(take.status == 0, "\(take.stderr)")
        #expect(take.stdout.contains("at its scheduled time 2026-03-09 08:00 because no --at was given"))
        let entries = try #require((try cli.json("ledger") as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.first?["takenAt"] as? String == "2026-03-09T07:00:00Z" && entries.first?["localDay"] as? String == "2026-03-09")
        let future = cli.run("take", today, "--at", "14:00")
        #expect(future.status == 1 && future.stderr.contains("That time is later than now."))
        let unreadable = cli.run("take", today, "--at", "soon")
        #expect(unreadable.status == 1 && unreadable.stderr.contains("Write the time it was taken as HH:MM"))
    }
}

@Test func takeAtAnOffsetBeyondFourteenHoursIsRefusedNeverWrapped() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)  // 2026-03-10T12:00Z, Berlin
        _ = try cli.setUpVitaminD()
        let dose = doseIDs(try cli.today()["doses"])[0]
        for at in ["2026-03-10T09:05+25:00", "2026-03-10T09:05+99:00", "2026-03-10T21:06+14:01"] {
            let refused = cli.run("take", dose, "--at", at)
            #expect(refused.status == 1, "\(at): \(refused.stderr)")
            #expect(refused.stderr == "cairn: " + ScheduleError.takenTimeOffsetOutOfRange.userMessage, "\(at)")
        }
        #expect(cli.run("take", dose, "--at", "2026-03-10T09:05+1:00").stderr.contains("Write the time it was taken as HH:MM"))
        let kept = cli.run("take", dose, "--at", "2026-03-10T21:05+14:00")
        #expect(kept.status == 0, "\(kept.stderr)")
        let entries = try #require((try cli.json("ledger") as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["takenAt"] as? String } == ["2026-03-10T07:05:00Z"])
    }
}

@Test func undoPutsTheDoseBackAndTheLedgerShowsWhatItUndoes() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        _ = try cli.setUpVitaminD()
        let dose = doseIDs(try cli.today()["doses"])[0]
        #expect(cli.run("take", dose).status == 0)
        let record = try #require(((try cli.json("ledger") as? [String: Any])?["entries"] as? [[String: Any]])?.first?["id"] as? String)
        let undo = cli.run("undo", record)
        #expect(undo.status == 0 && undo.stdout.hasPrefix("Undone: Vitamin D3, 08:00 on 2026-03-10 was logged as taken"))
        #expect(cli.run("undo", record).stdout.hasPrefix("Already undone"))
        #expect((try cli.today()["doses"] as? [[String: Any]])?.first?["state"] as? String == "not-logged")
        let ledger = cli.run("ledger").stdout
        #expect(ledger.contains("undone") && ledger.contains("(undoes \(record))"))
        #expect(cli.run("undo", "nope").stderr.contains("There is no log entry with that id."))
    }
}

@Test func reminderPreferencesAreSetFromADayAndShown() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        let schedule = try cli.setUpVitaminD()
        let set = cli.run("reminders", "set", "--quiet", "22:00-07:00", "--repeat", "15", "--names", "on")
        #expect(set.status == 0, "\(set.stderr)")
        let shown = cli.run("reminders", "show").stdout
        #expect(shown.contains("Quiet hours: 22:00-07:00") && shown.contains("every 15 minutes, at most 3 times"))
        #expect(shown.contains("Product and area names in the text: on"))
        let half = cli.run("reminders", "set", "--quiet", "22:00")
        #expect(half.status == 2 && half.stderr.contains("Quiet hours need a start and an end"), "\(half.stderr)")
        #expect(cli.run("reminders", "schedule", schedule, "off").status == 0)
        #expect(cli.run("reminders", "show").stdout.contains("Schedules with reminders off: Vitamin D3"))
        #expect(cli.run("reminders", "schedule", schedule, "maybe").status == 2)
        // Skin photo reminders: per area, off by default.
        #expect(cairn(["--data-dir", cli.vault, "skin", "add-area", "Left forearm"], environment: cli.environment).status == 0)
        #expect(cli.run("reminders", "show").stdout.contains("Skin photo reminders: none"))
        let area = cli.run("reminders", "area", "left forearm", "4")
        #expect(area.status == 0 && area.stdout.contains("every 4 weeks after its newest photo, from today"), "\(area.stderr)")
        #expect(cli.run("reminders", "show").stdout.contains("Skin photo reminders: Left forearm every 4 weeks"))
        #expect(cli.run("reminders", "area", "Left forearm", "60").stderr.contains("every 1 to 52 weeks"))
        #expect(cli.run("reminders", "area", "Left forearm", "off").stdout.contains("No photo reminders for Left forearm"))
        #expect(cli.run("reminders", "area", "Back", "2").status == 1)
    }
}

@Test func aProductIsArchivedAndRestoredFromTheCommandLine() throws {
    try withTemporaryDirectory { dir throws in
        let cli = RegimenCLI(dir)
        #expect(cli.run("products", "add", "Iron", "--form", "tablet", "Iron=18 mg").status == 0)
        let schedule = try #require((try cli.json("schedules", "add", "Iron", "--times", "08:00") as? [String: Any])?["scheduleID"] as? String)
        let refused = cli.run("products", "archive", "Iron")
        #expect(refused.status == 1 && refused.stderr.contains("Stop it first"))
        #expect(cli.run("schedules", "stop", schedule, "--from", "2099-01-01").status == 0)
        #expect(cli.run("products", "archive", "Iron").stdout.hasPrefix("Archived Iron."))
        #expect(!cli.run("products", "list").stdout.contains("Iron"))
        #expect(cli.run("products", "list", "--archived").stdout.contains("Iron"))
        #expect(cli.run("products", "restore", "Iron").status == 0)
        #expect(cli.run("products", "list").stdout.contains("Iron"))
    }
}

@Test func aDoseMoreThanAnHourEarlyIsRefusedWithoutATerminalUnlessYesIsGiven() throws {
    try withTemporaryDirectory { dir throws in
        var cli = RegimenCLI(dir)
        cli.environment["CAIRN_NOW"] = "2026-03-10T14:57:00Z"
        #expect(cli.run("products", "add", "Fish oil", "--form", "softgel", "--serving", "2", "Omega-3=1000 mg").status == 0)
        #expect(cli.run("schedules", "add", "Fish oil", "--times", "20:00", "--start", "2026-03-01").status == 0)
        let dose = "_2026-03-10_2000"
        let today = cli.run("today").stdout
        let id = try #require(today.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.hasSuffix(dose) })
        let refused = cli.run("take", id)
        #expect(refused.status == 1 && refused.stderr.contains("Give --yes"))
        #expect(try #require(cli.json("ledger") as? [String: Any])["entries"] as? [Any] != nil)
        let short = String(id.prefix(8)) + dose
        let taken = try #require(try cli.json("take", short, "--yes") as? [String: Any])
        #expect((taken["entry"] as? [String: Any])?["status"] as? String == "taken" && taken["alreadyLogged"] as? Bool == false)
        let record = try #require((taken["entry"] as? [String: Any])?["id"] as? String)
        #expect(cli.run("undo", String(record.prefix(6))).status == 0, "a unique start of a record id is enough")
        #expect(cli.run("today").stdout.contains("Fish oil, 2 softgels"), "doses say what is swallowed")
    }
}

@Test func aRefusalNamesTheAreaOrFileItIsAbout() throws {
    try withTemporaryDirectory { dir throws in
        let vault = dir.appendingPathComponent("vault").path
        let missing = dir.appendingPathComponent("missing.jpg").path
        #expect(cairn(["--data-dir", vault, "skin", "add-area", "Left arm"]).status == 0)
        #expect(cairn(["--data-dir", vault, "skin", "log", "Left arm", missing]).stderr == "cairn: \(missing): The file does not exist.")
        #expect(cairn(["--data-dir", vault, "skin", "timeline", "Right arm"]).stderr.hasPrefix("cairn: Area \"Right arm\": "))
    }
}
