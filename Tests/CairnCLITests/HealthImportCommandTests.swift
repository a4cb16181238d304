import CairnTestSupport
import Foundation
import Testing

@Suite struct HealthImportCommandTests {
    @Test func importsTheSampleAndReportsWhatItDid() throws {
        try withTemporaryDirectory { dir in
            let vault = dir.appendingPathComponent("vault").path
            let run = cairn("--data-dir", vault, "regimen", "outcomes", "import-health", HealthXML.sample.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.out == [
                    "2 new health records imported; 0 were already in Cairn.",
                    "6 records of 4 types Cairn does not read were skipped.",
                ])
            let again = cairn("--data-dir", vault, "regimen", "outcomes", "import-health", HealthXML.sample.path, "--json")
            #expect(again.status == 0)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
            #expect(json["added"] as? Int == 0)
            #expect(json["alreadyPresent"] as? Int == 2)
            #expect((json["skippedByType"] as? [String: Int])?["HKQuantityTypeIdentifierHeartRate"] == 2)
        }
    }

    @Test func outcomesImportHandsAnExportToTheHealthImport() throws {
        try withTemporaryDirectory { dir in
            let run = cairn("--data-dir", dir.appendingPathComponent("vault").path, "regimen", "outcomes", "import", HealthXML.sample.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.out.first == "2 new health records imported; 0 were already in Cairn.")
        }
    }

    @Test func outcomesImportReadsAHealthConnectExport() throws {
        try withTemporaryDirectory { dir in
            var export = HealthConnectFixture()
            export.weight(1, time: HealthConnectFixture.millis("2024-03-01 07:00:00 +0100"), grams: 70_500)
            export.rows.append("INSERT INTO distance_record_table (uuid, app_info_id, start_time, end_time, distance) VALUES (X'09', 1, 0, 1, 5.0)")
            let zip = dir.appendingPathComponent("Health Connect.zip")
            try export.writeZip(to: zip, in: try Scratch())
            let vault = dir.appendingPathComponent("vault").path
            let run = cairn("--data-dir", vault, "regimen", "outcomes", "import", zip.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.out == [
                    "1 new health record imported; 0 were already in Cairn.",
                    "1 record of a type Cairn does not read was skipped.",
                ])
            let list = cairn("--data-dir", vault, "regimen", "outcomes", "list", "--daily", "--metric", "body_mass")
            #expect(list.out.contains("  2024-03-01  70.5"), "\(list.out)")
        }
    }

    @Test func listsLeftOutRecordsByProblem() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("export.xml")
            try HealthXML.write(
                HealthXML.document(
                    HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "-3", start: "2024-01-01 08:00:00 +0000")
                        + HealthXML.record(
                            "HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", value: "0", start: "2024-01-01 08:00:00 +0000")), to: file)
            let run = cairn("--data-dir", dir.appendingPathComponent("vault").path, "regimen", "outcomes", "import-health", file.path)
            #expect(run.status == 0)
            // Each reason names the lines of export.xml its records start on (the header takes 28 lines).
            #expect(
                run.out == [
                    "0 new health records imported; 0 were already in Cairn.", "Left out 2 records, with their reason:",
                    "  1 heart rates of zero or less, or above 300 (export.xml line 30)",
                    "  1 step counts below zero (export.xml line 29)",
                ])
        }
    }

    @Test func aTruncatedExportFailsWithAPlainMessage() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("export.xml")
            try HealthXML.write(
                String(
                    HealthXML.document(
                        HealthXML.record(
                            "HKQuantityTypeIdentifierStepCount", value: "3",
                            start: "2024-01-01 08:00:00 +0000")
                    ).dropLast(40)), to: file)
            let run = cairn("--data-dir", dir.appendingPathComponent("vault").path, "regimen", "outcomes", "import-health", file.path)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("cairn: The export is not well-formed XML"))
            #expect(!run.stderr.contains(dir.path))
        }
    }

    @Test func needsExactlyOneFile() {
        #expect(cairn("regimen", "outcomes", "import-health").status == 2)
        #expect(cairn("regimen", "outcomes", "import-health", "a.zip", "b.zip").status == 2)
        let help = cairn("regimen", "outcomes", "import-health", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("Export All Health Data"))
    }
}
