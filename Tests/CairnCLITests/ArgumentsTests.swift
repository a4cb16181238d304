import CairnCLI
import Testing

@Test func separatesOptionsFlagsAndPositionals() throws {
    let args = try Arguments(["a.jpg", "--port", "80", "--json", "b.jpg", "--host=localhost"],
                             valueOptions: ["--port", "--host"], flagOptions: ["--json"])
    #expect(args.positionals == ["a.jpg", "b.jpg"])
    #expect(args.value("--port") == "80")
    #expect(args.value("--host") == "localhost")
    #expect(args.has("--json"))
    #expect(!args.has("--yes"))
}

@Test func doubleDashEndsOptions() throws {
    let args = try Arguments(["--", "--odd-name.jpg"], valueOptions: [], flagOptions: [])
    #expect(args.positionals == ["--odd-name.jpg"])
}

@Test func anOptionWithoutItsValueIsAUsageError() {
    #expect(throws: UsageError("--port needs a value.")) {
        try Arguments(["--port"], valueOptions: ["--port"], flagOptions: [])
    }
}

@Test func aFlagGivenAValueIsRejected() {
    #expect(throws: UsageError("Unknown option --json.")) {
        try Arguments(["--json=yes"], valueOptions: [], flagOptions: ["--json"])
    }
}

@Test func integerOptionsAreRangeChecked() throws {
    let args = try Arguments(["--port", "-1"], valueOptions: ["--port"], flagOptions: [])
    #expect(throws: UsageError("--port takes a whole number from 0 to 65535.")) {
        try args.integer("--port", in: 0...65535, default: 1)
    }
    #expect(try Arguments([], valueOptions: ["--port"], flagOptions: []).integer("--port", in: 0...9, default: 7) == 7)
}

@Test func positionalCountsAreChecked() throws {
    let none = try Arguments([], valueOptions: [], flagOptions: [])
    #expect(throws: UsageError("Missing FILE.")) { try none.positionals(exactly: ["FILE"]) }
    let two = try Arguments(["a", "b"], valueOptions: [], flagOptions: [])
    #expect(throws: UsageError("Unexpected argument b.")) { try two.positionals(exactly: ["FILE"]) }
}
