import CairnApp
import CairnCore
import Foundation
import Testing

@testable import WebApp

private final class FHIRSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-fhir-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init() throws {
        cairn = try CairnApplication.open(
            dataDirectory: directory.path, environment: [:], clock: FixedClock(Date(timeIntervalSince1970: 1_773_144_000)))
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

@Test func settingsLeadsToTheFHIRExportForm() throws {
    let site = try FHIRSite()
    #expect(site.app.handle(Fixture.get("/settings")).bodyText.contains("href=\"/settings/export/fhir\""))
    let page = site.app.handle(Fixture.get("/settings/export/fhir"))
    #expect(page.status == 200)
    #expect(page.bodyText.contains("action=\"/settings/export/fhir\""))
    #expect(page.bodyText.contains("name=\"regimen\" value=\"on\" checked"))
}

@Test func theFHIRFormDownloadsADocumentBundle() throws {
    let site = try FHIRSite()
    _ = try site.cairn.outcomes.add(metricID: "mood", value: 3, on: LocalDay(parsing: "2026-03-01")!)
    let response = site.app.handle(
        Fixture.post("/settings/export/fhir", form: ["from": "2026-03-01", "to": "", "regimen": "on", "outcomes": "on", "name": ""]))
    #expect(response.status == 200)
    #expect(response.header("Content-Type") == "application/fhir+json")
    #expect(response.header("Content-Disposition") == "attachment; filename=\"cairn-fhir.json\"")
    let bundle = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    #expect(bundle["type"] as? String == "document")
    #expect(String(decoding: response.body, as: UTF8.self).contains(FHIRExportService.disclaimer))
}

@Test func aBadDayOrNoJournalIsRefusedBesideItsField() throws {
    let site = try FHIRSite()
    let response = site.app.handle(Fixture.post("/settings/export/fhir", form: ["from": "March", "to": "", "name": ""]))
    #expect(response.status == 400)
    #expect(response.bodyText.contains("id=\"fhir-from-error\""))
    #expect(response.bodyText.contains("aria-describedby=\"fhir-from-error\""))
    #expect(response.bodyText.contains("Tick at least one journal."))
    #expect(response.bodyText.contains("value=\"March\""))
}

@Test func theFHIRDownloadNeedsTheFormToken() throws {
    let site = try FHIRSite()
    #expect(site.app.handle(Fixture.post("/settings/export/fhir", form: ["regimen": "on"], csrf: nil)).status == 403)
}
