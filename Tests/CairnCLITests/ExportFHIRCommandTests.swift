import CairnTestSupport
import Foundation
import Testing

@Suite struct ExportFHIRCommandTests {
    @Test func writesAnOwnerOnlyDocumentBundleOfTheJournalsAskedFor() throws {
        try withTemporaryDirectory { dir in
            let vault = dir.appendingPathComponent("vault").path
            #expect(cairn("--data-dir", vault, "regimen", "outcomes", "add", "sleep_quality", "4", "--date", "2026-03-02").status == 0)
            let out = dir.appendingPathComponent("journal.fhir.json")
            let run = cairn("--data-dir", vault, "export", "fhir", "--out", out.path, "--journals", "outcomes", "--from", "2026-03-01")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.out == ["Wrote the FHIR document to the file."])
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
            #expect(bundle["type"] as? String == "document")
            let types = ((bundle["entry"] as? [[String: Any]]) ?? []).compactMap { ($0["resource"] as? [String: Any])?["resourceType"] as? String }
            #expect(types == ["Composition", "Patient", "Observation"])
        }
    }

    @Test func refusesAJournalItDoesNotKnowAndAMissingOut() throws {
        try withTemporaryDirectory { dir in
            let vault = dir.appendingPathComponent("vault").path
            let journals = cairn("--data-dir", vault, "export", "fhir", "--out", dir.appendingPathComponent("x.json").path, "--journals", "skin")
            #expect(journals.status == 2)
            #expect(journals.stderr.contains("--journals: Name the journals as regimen, outcomes, or both: regimen,outcomes."))
            #expect(cairn("--data-dir", vault, "export", "fhir").status == 2)
        }
    }
}
