import CairnCLI
import CairnCore
import Testing

/// Issue 37: one mapping from a refusal's kind to an exit code; the README's codes stay (1 for every refusal).
@Test func everyKindOfRefusalExitsWithOneAsTheREADMESays() {
    for kind in ErrorKind.allCases { #expect(CairnCommandLine.exitCode(for: kind) == 1, "\(kind)") }
}
