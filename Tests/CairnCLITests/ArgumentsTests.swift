import Testing

@testable import CairnCLI

private let port = Option("--port", "N", help: "The port.")
private let host = Option("--host", "HOST", help: "The host.")
private let json = Option("--json", help: "Print JSON.")

@Test func separatesOptionsFlagsAndPositionals() throws {
    let args = try Arguments(["a.jpg", "--port", "80", "--json", "b.jpg", "--host=localhost"], options: [port, host, json])
    #expect(args.positionals == ["a.jpg", "b.jpg"])
    #expect(args.value(port) == "80")
    #expect(args.value(host) == "localhost")
    #expect(args.has(json))
    let without = try Arguments([], options: [port, json])
    #expect(!without.has(json))
    #expect(without.value(port) == nil)
}

@Test func doubleDashEndsOptions() throws {
    let args = try Arguments(["--", "--odd-name.jpg"], options: [])
    #expect(args.positionals == ["--odd-name.jpg"])
}

@Test func anOptionWithoutItsValueIsAUsageError() {
    #expect(throws: UsageError("--port needs a value.")) {
        try Arguments(["--port"], options: [port])
    }
}

@Test func aFlagGivenAValueIsRejected() {
    #expect(throws: UsageError("Unknown option --json.")) {
        try Arguments(["--json=yes"], options: [json])
    }
}

@Test func anOptionTheCommandDoesNotDeclareIsRejected() {
    #expect(throws: UsageError("Unknown option --host.")) {
        try Arguments(["--host", "x"], options: [port, json])
    }
}

@Test func integerOptionsAreRangeChecked() throws {
    let args = try Arguments(["--port", "-1"], options: [port])
    #expect(throws: UsageError("--port takes a whole number from 0 to 65535.")) {
        try args.integer(port, in: 0...65535, default: 1)
    }
    #expect(try Arguments([], options: [port]).integer(port, in: 0...9, default: 7) == 7)
}

@Test func positionalCountsAreChecked() throws {
    let none = try Arguments([], options: [])
    #expect(throws: UsageError("Missing FILE.")) { try none.positionals(exactly: ["FILE"]) }
    let two = try Arguments(["a", "b"], options: [])
    #expect(throws: UsageError("Unexpected argument b.")) { try two.positionals(exactly: ["FILE"]) }
}

@Test func theUsageLineComesFromTheDeclarations() {
    let out = Option("--out", "PATH", help: "The file.", required: true)
    #expect(Option.usage(of: [out, port, json]) == "--out PATH [--port N] [--json]")
    #expect(out.required == out)
    #expect(port.required.usage == "--port N")
}

@Test func theHelpSectionAlignsTheHelpAndSharesALineForTheSameHelp() {
    let from = Option("--from", "DATE", help: "Only this range.")
    let to = Option("--to", "DATE", help: "Only this range.")
    let long = Option("--times", "LIST", help: "Times of day,\nseparated by commas.")
    #expect(
        Option.helpSection(of: [from, to, long, json]) == """
            Options:
              --from DATE, --to DATE   Only this range.
              --times LIST             Times of day,
                                       separated by commas.
              --json                   Print JSON.
            """)
    #expect(Option.helpSection(of: []) == "")
}
