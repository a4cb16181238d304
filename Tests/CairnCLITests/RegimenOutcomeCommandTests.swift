import CairnCLI
import CairnCore
import Foundation
import Testing

/// A vault and a fixed clock for `cairn regimen outcomes` calls.
private struct OutcomesCLI {
    let dir: URL
    var vault: String { dir.appendingPathComponent("vault").path }
    let environment = ["CAIRN_NOW": "2026-03-10T12:00:00Z", "TZ": "Europe/Berlin"]

    func run(_ words: String...) -> CLIRun { cairn(["--data-dir", vault, "regimen"] + words, environment: environment) }

    func json(_ words: String...) throws -> Any {
        let result = cairn(["--data-dir", vault, "regimen"] + words + ["--json"], environment: environment)
        #expect(result.status == 0, "\(words): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func file(_ name: String, _ text: String) -> String {
        let url = dir.appendingPathComponent(name)
        try! Data(text.utf8).write(to: url)
        return url.path
    }
}

@Test func outcomesHelpListsItsCommandsWithoutBannedWords() {
    let run = cairn("regimen", "outcomes", "--help")
    #expect(run.status == 0)
    for command in ["add", "correct", "import", "list", "metrics", "define"] {
        #expect(run.stdout.contains("\n  \(command) "), "lists \(command)")
    }
    #expect(cairn("regimen", "--help").stdout.contains("\n  outcomes "))
    #expect(cairn("regimen", "--help").stdout.contains("\n  import "))
    for path in [["add"], ["correct"], ["import"], ["list"], ["metrics"], ["define"]] {
        let help = cairn(["regimen", "outcomes"] + path + ["--help"])
        #expect(help.stdout.contains("Usage: cairn regimen outcomes \(path[0])"))
        #expect(ProductWording.bannedWords(in: help.stdout).isEmpty, "\(path)")
    }
    let importHelp = cairn("regimen", "import", "--help").stdout
    #expect(importHelp.contains("Usage: cairn regimen import FILE.csv"))
    #expect(ProductWording.bannedWords(in: importHelp).isEmpty)
}

@Test func addListAndCorrectAValue() throws {
    try withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        let added = cli.run("outcomes", "add", "energy", "4", "--date", "2026-03-09", "--note", "walk")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("Logged Energy 4 for 2026-03-09 (entry "))
        let today = try #require(try cli.json("outcomes", "add", "mood", "2.5") as? [String: Any])
        #expect(today["date"] as? String == "2026-03-10" && today["value"] as? Double == 2.5 && today["origin"] as? String == "manual")
        let entries = try #require(try cli.json("outcomes", "list", "--metric", "energy") as? [[String: Any]])
        #expect(entries.count == 1 && entries[0]["note"] as? String == "walk")
        let id = try #require(entries[0]["id"] as? String)
        let fix = cli.run("outcomes", "correct", id, "3")
        #expect(fix.status == 0 && fix.stdout.contains("replaces \(id)"))
        let daily = try #require(try cli.json("outcomes", "list", "--daily") as? [[String: Any]])
        #expect(daily.map { $0["metric"] as? String } == ["energy", "mood"])
        #expect(daily.map { $0["value"] as? Double } == [3, 2.5])
        let text = cli.run("outcomes", "list").stdout
        #expect(text.contains("(corrected by ") && text.contains("[typed]"))
    }
}

@Test func aNoteWithARightToLeftOverrideIsStoredButPrintedEscaped() throws {
    try withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        let note = "walk \u{202E}tuo\u{202C} 👨\u{200D}👩\u{200D}👧"
        #expect(cli.run("outcomes", "add", "energy", "4", "--note", note).status == 0)
        let text = cli.run("outcomes", "list").stdout
        #expect(text.contains("note: walk <U+202E>tuo<U+202C> 👨\u{200D}👩\u{200D}👧"), "\(text)")
        #expect(!text.unicodeScalars.contains("\u{202E}"))
        // JSON carries the stored text, the override as a JSON escape.
        let json = cli.run("outcomes", "list", "--json").stdout
        #expect(json.contains(#"walk \u202etuo\u202c"#) && !json.unicodeScalars.contains("\u{202E}"), "\(json)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(entries.first?["note"] as? String == note)
    }
}

@Test func badValuesAreRefusedWithClearErrors() throws {
    withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        #expect(cli.run("outcomes", "add", "energy", "lots").status == 2)
        #expect(cli.run("outcomes", "add", "energy").status == 2)
        #expect(cli.run("outcomes", "add", "energy", "3", "--date", "March").status == 2)
        let range = cli.run("outcomes", "add", "energy", "7")
        #expect(range.status == 1 && range.stderr == "cairn: The value is outside this metric's range (1-5).")
        #expect(cli.run("outcomes", "add", "steps", "900").stderr.contains("Apple Health"))
        #expect(cli.run("outcomes", "add", "secret_metric", "3").stderr.contains("no metric with this id"))
        #expect(!cli.run("outcomes", "add", "secret_metric", "3").stderr.contains("secret"))
        #expect(cli.run("outcomes", "add", "energy", "3", "--date", "2026-03-11").status == 1)
        #expect(cli.run("outcomes", "list", "--metric", "nope").status == 1)
        #expect(cli.run("outcomes", "list").stdout.hasPrefix("No values yet."))
    }
}

@Test func importReportsEveryBadLineAndThenImportsOnceWhenFixed() throws {
    try withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        let bad = cli.file("bad.csv", "date,metric,value\n2026-03-01,energy,3\n2026-03-01,energy,x\n2026-02-30,mood,2\n")
        let refused = cli.run("outcomes", "import", bad)
        #expect(refused.status == 1)
        #expect(
            refused.err == [
                "Line 3: the value is not a number (write decimals with a dot, like 3.5).",
                "Line 4: the date is not a real date written YYYY-MM-DD.",
                "cairn: 2 lines could not be read, so nothing was imported. Fix them and import the file again.",
            ])
        #expect(cli.run("outcomes", "list").stdout.hasPrefix("No values yet."))
        let good = cli.file("good.csv", "date,metric,value\r\n2026-03-01,energy,3\r\n2026-03-02,Sleep quality,4\r\n")
        #expect(cli.run("outcomes", "import", good).stdout == "Read 2 lines: 2 new, 0 replaced an earlier import, 0 already there.")
        let again = try #require(try cli.json("outcomes", "import", good) as? [String: Any])
        #expect(again["added"] as? Int == 0 && again["unchanged"] as? Int == 2)
        let wrong = cli.run("outcomes", "import", cli.file("wrong.csv", "when,what\n1,2\n"))
        #expect(wrong.status == 1 && wrong.stderr.contains("does not have the right columns"))
        let missing = dir.appendingPathComponent("missing.csv").path
        #expect(cli.run("outcomes", "import", missing).stderr == "cairn: \(missing): The file does not exist.", "the message names the file")
    }
}

@Test func defineAMetricAndListTheMetrics() throws {
    try withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        let defined = cli.run("outcomes", "define", "headache", "Headache")
        #expect(defined.status == 0 && defined.stdout == "Defined headache: 1-5, 1-5, mean per day.")
        #expect(cli.run("outcomes", "define", "water", "Water", "--unit", "L", "--min", "0", "--max", "10", "--daily", "sum").status == 0)
        #expect(cli.run("outcomes", "define", "headache", "Again").stderr.contains("exists already"))
        #expect(cli.run("outcomes", "define", "Bad Id", "X").status == 1)
        #expect(cli.run("outcomes", "define", "x", "X", "--min", "5", "--max", "1").status == 2)
        #expect(cli.run("outcomes", "define", "x", "X", "--daily", "median").status == 2)
        let metrics = try #require(try cli.json("outcomes", "metrics") as? [[String: Any]])
        #expect(
            metrics.compactMap { $0["id"] as? String } == [
                "sleep_quality", "energy", "skin", "mood", "resting_heart_rate", "hrv_sdnn",
                "steps", "body_mass", "sleep_asleep", "sleep_in_bed", "heart_rate", "blood_pressure_systolic",
                "blood_pressure_diastolic", "headache", "water",
            ])
        let text = cli.run("outcomes", "metrics").stdout
        #expect(text.contains("hrv_sdnn") && text.contains("from a health export") && text.contains("water"))
        #expect(cli.run("outcomes", "add", "water", "1.5").status == 0)
    }
}

@Test func importIntakeHistoryThroughTheLedger() throws {
    try withTemporaryDirectory { dir in
        let cli = OutcomesCLI(dir: dir)
        #expect(cli.run("products", "add", "Vitamin D3", "--form", "softgel", "Vitamin D3=25 mcg").status == 0)
        let file = cli.file(
            "history.csv",
            """
            date,time,time zone,product,amount,unit,status
            2026-03-01,08:00,Europe/Berlin,vitamin d3,1,softgel,taken
            2026-03-02,08:00,Europe/Berlin,Vitamin D3,1,softgel,skipped

            """)
        let first = cli.run("import", file)
        #expect(first.status == 0 && first.stdout == "Read 2 lines: 2 new, 0 replaced an earlier import, 0 already there.")
        let again = try #require(try cli.json("import", file) as? [String: Any])
        #expect(again["unchanged"] as? Int == 2)
        let lines = try #require(again["lines"] as? [[String: Any]])
        #expect((lines[0]["entry"] as? [String: Any])?["takenAt"] as? String == "2026-03-01T07:00:00Z")
        let ledger = cli.run("ledger").stdout
        #expect(ledger.contains("2026-03-01 08:00 Europe/Berlin  taken") && ledger.contains("skipped"))
        let bad = cli.run(
            "import", cli.file("bad.csv", "date,time,time zone,product,amount,unit,status\n2026-03-01,08:00,Europe/Berlin,Unknown thing,1,,taken\n"))
        #expect(bad.status == 1 && bad.err.first == "Line 2: the product is not in your product list (match its name exactly, or use its id).")
    }
}
