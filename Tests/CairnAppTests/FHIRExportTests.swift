import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Regimen
import Testing

@Suite struct FHIRExportTests {
    private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

    /// A vault on 2026-03-10 (Berlin) with a product taken on the 1st and 2nd and skipped on the 3rd, a product never
    /// logged, sleep quality ratings, and steps and blood pressure from a Health Connect import.
    private func filledVault() throws -> TestVault {
        let vault = try TestVault(clock: TravelClock("2026-03-10T12:00:00Z", zone: "Europe/Berlin"))
        let app = vault.app
        let magnesium = try Product(
            name: "Magnesium", brand: "Acme", form: .capsule, servingSize: try Amount("1", .count),
            ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: "Magnesium", amount: try Amount("200", .mg))])
        let stored = try app.regimen.addProduct(magnesium, decisions: .acceptingEveryRow(of: magnesium))
        let unused = try Product(name: "Vitamin D", form: .softgel, servingSize: try Amount("1", .count), ingredients: [])
        _ = try app.regimen.addProduct(unused, decisions: .acceptingEveryRow(of: unused))
        let schedule = try app.regimen.addSchedule(
            SchedulePlan(productID: stored.product.id, times: [TimeSlot(parsing: "08:00")!], recurrence: .daily, startDay: day("2026-03-01")))
        for (d, status) in [("2026-03-01", IntakeStatus.taken), ("2026-03-02", .taken), ("2026-03-03", .skipped)] {
            let dose = DoseOccurrence(revisionID: schedule.id, day: day(d), slot: TimeSlot(parsing: "08:00")!)
            let at = WallClock.instant(of: day(d), at: TimeSlot(parsing: "08:05")!, in: TimeZone(identifier: "Europe/Berlin")!)
            try app.regimen.checkIn(dose.doseID, status: status, at: at)
        }
        _ = try app.outcomes.add(metricID: "sleep_quality", value: 4, on: day("2026-03-02"))
        _ = try app.outcomes.add(metricID: "sleep_quality", value: 3, on: day("2026-03-05"))
        var export = HealthConnectFixture()
        export.steps(
            1, start: HealthConnectFixture.millis("2026-03-02 08:00:00 +0100"), end: HealthConnectFixture.millis("2026-03-02 09:00:00 +0100"),
            count: 1234)
        export.bloodPressure(2, time: HealthConnectFixture.millis("2026-03-02 07:00:00 +0100"), systolic: 120, diastolic: 80)
        let zip = vault.scratch.file("hc.zip")
        try export.writeZip(to: zip, in: vault.scratch)
        _ = try app.health.importExport(at: zip)
        return vault
    }

    private func parse(_ data: Data) throws -> (bundle: [String: Any], resources: [[String: Any]]) {
        let bundle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(bundle["entry"] as? [[String: Any]])
        return (bundle, entries.compactMap { $0["resource"] as? [String: Any] })
    }

    private func ofType(_ type: String, _ resources: [[String: Any]]) -> [[String: Any]] {
        resources.filter { $0["resourceType"] as? String == type }
    }

    private func loinc(_ resource: [String: Any]) -> String? {
        ((resource["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String
    }

    @Test func aDocumentBundleOpensWithItsCompositionAndDisclaimer() throws {
        let vault = try filledVault()
        let data = try vault.app.fhir.bundle(try FHIRExportRequest())
        let (bundle, resources) = try parse(data)
        #expect(bundle["resourceType"] as? String == "Bundle" && bundle["type"] as? String == "document")
        #expect((bundle["identifier"] as? [String: Any])?["value"] as? String != nil)
        #expect(resources.first?["resourceType"] as? String == "Composition")
        let div = try #require(((resources.first?["text"] as? [String: Any])?["div"]) as? String)
        #expect(div.contains(FHIRExportService.disclaimer))
        #expect(div.contains("No photos."))
        #expect(div.contains("the whole history"))
        #expect(ProductWording.bannedWords(in: FHIRExportService.disclaimer).isEmpty)
        // Nothing identifying: a Patient without a name.
        let patient = try #require(ofType("Patient", resources).first)
        #expect(patient.keys.sorted() == ["resourceType"])
        // Every reference names an entry of the bundle.
        let urls = Set(((bundle["entry"] as? [[String: Any]]) ?? []).compactMap { $0["fullUrl"] as? String })
        let text = String(decoding: data, as: UTF8.self)
        #expect(urls.count == resources.count)
        for match in text.matches(of: /"reference":"(urn:uuid:[0-9a-f-]+)"/) { #expect(urls.contains(String(match.output.1))) }
    }

    @Test func dosesAreNeverStrongerThanWhatWasLogged() throws {
        let vault = try filledVault()
        let (_, resources) = try parse(try vault.app.fhir.bundle(try FHIRExportRequest()))
        let statements = ofType("MedicationStatement", resources)
        func status(_ name: String) -> String? {
            statements.first { (($0["medicationCodeableConcept"] as? [String: Any])?["text"] as? String)?.hasPrefix(name) == true }?["status"]
                as? String
        }
        #expect(status("Magnesium (Acme)") == "active")
        #expect(status("Vitamin D") == "unknown")
        #expect(statements.allSatisfy { ($0["informationSource"] as? [String: Any])?["reference"] != nil })
        let doses = ofType("MedicationAdministration", resources)
        #expect(doses.map { $0["status"] as? String } == ["completed", "completed", "not-done"])
        #expect(
            doses.map { $0["effectiveDateTime"] as? String } == [
                "2026-03-01T08:05:00+01:00", "2026-03-02T08:05:00+01:00", "2026-03-03T08:05:00+01:00",
            ])
        // Only skipped doses in a period: not taken, never active.
        let skippedOnly = try parse(try vault.app.fhir.bundle(try FHIRExportRequest(from: day("2026-03-03"), to: day("2026-03-03")))).resources
        #expect(ofType("MedicationStatement", skippedOnly).compactMap { $0["status"] as? String }.sorted() == ["not-taken", "unknown"])
        #expect(FHIRExportService.statementStatus(taken: [day("2026-01-01")], skipped: 0, lastDay: day("2026-03-10")) == "completed")
    }

    @Test func outcomesCarryLOINCCodesWhereAStandardOneExists() throws {
        let vault = try filledVault()
        let (_, resources) = try parse(try vault.app.fhir.bundle(try FHIRExportRequest(journals: .outcomes)))
        #expect(ofType("MedicationStatement", resources).isEmpty)
        let observations = ofType("Observation", resources)
        let steps = try #require(observations.first { loinc($0) == "41950-7" })
        #expect(steps["effectiveDateTime"] as? String == "2026-03-02")
        #expect((steps["valueQuantity"] as? [String: Any])?["value"] as? Int == 1234)
        let pressure = try #require(observations.first { loinc($0) == "85354-9" })
        let components = try #require(pressure["component"] as? [[String: Any]])
        #expect(components.compactMap(loinc) == ["8480-6", "8462-4"])
        #expect(components.compactMap { ($0["valueQuantity"] as? [String: Any])?["code"] as? String } == ["mm[Hg]", "mm[Hg]"])
        let ratings = observations.filter {
            ((($0["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["system"] as? String) == FHIRCodes.cairnSystem
        }
        #expect(ratings.count == 2)
        #expect(ratings.allSatisfy { loinc($0) == "sleep_quality" })
    }

    @Test func thePeriodJournalsAndNameAreTheOnesAskedFor() throws {
        let vault = try filledVault()
        let request = try FHIRExportRequest(from: day("2026-03-02"), to: day("2026-03-02"), journals: .all, patientName: "  Sam  ")
        let (_, resources) = try parse(try vault.app.fhir.bundle(request))
        #expect(ofType("MedicationAdministration", resources).count == 1)
        #expect(ofType("Observation", resources).compactMap { $0["effectiveDateTime"] as? String }.allSatisfy { $0 == "2026-03-02" })
        #expect(ofType("Patient", resources).first?["name"] as? [[String: String]] == [["text": "Sam"]])
        #expect(try FHIRJournals.parse(" Regimen , outcomes") == .all)
        #expect(throws: FHIRExportError.unknownJournal) { try FHIRJournals.parse("regimen,photos") }
        #expect(throws: ScheduleError.rangeEndsBeforeStart) { try FHIRExportRequest(from: day("2026-03-05"), to: day("2026-03-01")) }
    }

    @Test func theFileIsWrittenForItsOwnerOnly() throws {
        let vault = try filledVault()
        let path = vault.scratch.file("cairn.fhir.json").path
        try vault.app.fhir.write(try FHIRExportRequest(), to: path)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    /// The bundle against the FHIR R4 models of fhir.resources (PyPI, fetched by `scripts/install-deps.sh
    /// --with-test-tools` into .build/test-tools/fhir, or `CAIRN_FHIR_PYTHONPATH`); and a broken copy refused, so
    /// the check is known to check.
    @Test func theBundleIsValidAgainstTheFHIRR4Models() throws {
        let folder =
            ProcessInfo.processInfo.environment["CAIRN_FHIR_PYTHONPATH"]
            ?? SharedData.repositoryRoot.appendingPathComponent(".build/test-tools/fhir").path
        guard FileManager.default.fileExists(atPath: folder + "/fhir/resources/__init__.py"), let python = Tools.path(of: "python3") else {
            Issue.record(
                "fhir.resources is missing at \(folder): run `scripts/install-deps.sh --with-test-tools`, or point CAIRN_FHIR_PYTHONPATH at a folder holding it"
            )
            return
        }
        let vault = try filledVault()
        let good = vault.scratch.file("good.json")
        try vault.app.fhir.write(try FHIRExportRequest(patientName: "Sam"), to: good.path)
        var broken = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: good)) as? [String: Any])
        var entries = try #require(broken["entry"] as? [[String: Any]])
        var composition = try #require(entries[0]["resource"] as? [String: Any])
        composition["status"] = nil
        composition["mood"] = "fine"
        entries[0]["resource"] = composition
        broken["entry"] = entries
        let bad = vault.scratch.file("bad.json")
        try JSONSerialization.data(withJSONObject: broken).write(to: bad)
        let script = """
            import sys
            from fhir.resources import __fhir_version__
            from fhir.resources.bundle import Bundle
            assert __fhir_version__ == "4.0.1", __fhir_version__
            for path, expected in ((sys.argv[1], True), (sys.argv[2], False)):
                try:
                    bundle = Bundle.parse_file(path)
                    ok = bundle.type == "document" and bundle.entry[0].resource.resource_type == "Composition"
                except Exception as error:
                    ok = False
                    if expected: print(error)
                print(path.rsplit("/", 1)[-1], "valid" if ok else "refused")
            """
        let output = String(
            decoding: try Tools.run("/usr/bin/env", ["PYTHONPATH=\(folder)", python, "-c", script, good.path, bad.path]), as: UTF8.self)
        #expect(output == "good.json valid\nbad.json refused\n")
    }
}
