import CairnApp
import CairnCore
import Foundation
import Skin
import Testing

@testable import WebApp

/// The report pages: a preview that lists what the file holds, then a CSRF-checked download of the PDF.
final class ReportSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-reports-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication
    let area: TrackingArea

    init() throws {
        cairn = try CairnApplication.open(
            dataDirectory: directory.path, environment: [:],
            clock: FixedClock(ISO8601DateFormatter().date(from: "2026-04-30T20:00:00Z")!))
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
        area = try cairn.skin.addArea(name: "Left forearm")
        try SkinDemo.generate(count: 2, seed: 2, into: area.id, service: cairn.skin, now: cairn.clock.now())
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

@Test func theSkinPreviewSaysWhatTheFileHoldsAndTheDownloadIsAPDFStoredNowhere() throws {
    let site = try ReportSite()
    let before = try FileManager.default.subpathsOfDirectory(atPath: site.directory.path).filter {
        !$0.contains("sqlite") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
    }
    let page = site.app.handle(Fixture.get("/reports/skin/\(site.area.id.rawValue)"))
    #expect(page.status == 200)
    #expect(page.bodyText.contains("What the file will hold"))
    #expect(page.bodyText.contains("2 photos, oldest first"))
    #expect(page.bodyText.contains(HTML.escape(ReportService.metadataSentence)))
    #expect(page.bodyText.contains(HTML.escape(ReportService.notEncryptedSentence)))
    #expect(page.bodyText.contains("id=\"report-download\""))

    let download = site.app.handle(Fixture.post("/reports/skin/\(site.area.id.rawValue)", form: ["paper": "letter"]))
    #expect(download.status == 200)
    #expect(download.header("Content-Type") == "application/pdf")
    #expect(download.header("Cache-Control") == "no-store")
    #expect(download.header("Content-Disposition") == "attachment; filename=\"cairn-skin-photo-log.pdf\"")
    #expect(download.body.starts(with: Data("%PDF-".utf8)))
    let after = try FileManager.default.subpathsOfDirectory(atPath: site.directory.path).filter {
        !$0.contains("sqlite") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
    }
    #expect(after == before, "nothing about the report is stored in the vault")

    let forged = site.app.handle(Fixture.post("/reports/skin/\(site.area.id.rawValue)", form: [:], csrf: nil))
    #expect(forged.status == 403)
}

@Test func theAreaSmileAndLedgerPagesOfferTheirReports() throws {
    let site = try ReportSite()
    #expect(site.app.handle(Fixture.get("/skin/areas/\(site.area.id.rawValue)")).bodyText.contains("href=\"/reports/skin/\(site.area.id.rawValue)\""))
    #expect(site.app.handle(Fixture.get("/regimen/ledger")).bodyText.contains("href=\"/reports/regimen\""))
    let smile = site.app.handle(Fixture.get("/reports/smile"))
    #expect(smile.status == 200 && smile.bodyText.contains("Only the anonymised mouth crops"))
}

@Test func theRegimenPreviewChecksThePeriodBesideItsFields() throws {
    let site = try ReportSite()
    let bad = site.app.handle(Fixture.get("/reports/regimen?from=2026-04-10&to=2026-04-01"))
    #expect(bad.status == 400)
    #expect(bad.bodyText.contains("The last day comes before the first day."))
    let unreadable = site.app.handle(Fixture.get("/reports/regimen?from=March&to=2026-04-01"))
    #expect(unreadable.status == 400)
    #expect(unreadable.bodyText.contains("aria-describedby=\"report-from-error\" aria-invalid=\"true\""))
    #expect(unreadable.bodyText.contains("id=\"report-from-error\">A date must be written as YYYY-MM-DD"))
    #expect(!unreadable.bodyText.contains("report-to-error"))
    let good = site.app.handle(Fixture.get("/reports/regimen?from=2026-04-01&to=2026-04-30"))
    #expect(good.status == 200)
    #expect(good.bodyText.contains("name=\"from\" value=\"2026-04-01\""))
    let pdf = site.app.handle(Fixture.post("/reports/regimen", form: ["from": "2026-04-01", "to": "2026-04-30"]))
    #expect(pdf.header("Content-Disposition") == "attachment; filename=\"cairn-regimen-summary-2026-04-01-to-2026-04-30.pdf\"")
}
