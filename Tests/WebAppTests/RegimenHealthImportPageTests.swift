import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Testing

@testable import WebApp

/// The real Apple Health sample from ../shared/data/health.
private let sampleExport: Data = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return (try? Data(contentsOf: root.appendingPathComponent("../shared/data/health/export-sample.xml"))) ?? Data()
}()

private final class HealthSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-health-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init() throws {
        cairn = try CairnApplication.open(
            dataDirectory: directory.path, environment: [:],
            clock: FixedClock(Date(timeIntervalSince1970: 1_773_144_000)))
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func upload(_ data: Data, csrf: String? = Fixture.csrf) -> Response {
        var fields = ["file": data]
        if let csrf { fields["csrf"] = Data(csrf.utf8) }
        return app.handle(
            Request(
                method: .post, path: "/regimen/outcomes/health",
                headers: [
                    "Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)",
                    "Content-Type": "multipart/form-data; boundary=x",
                ], formFields: fields))
    }

    /// Files in the vault folder (not in its subfolders).
    var vaultFiles: Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []) }
}

@Test func theHealthImportPageOffersAnUploadFormLinkedFromOutcomes() throws {
    let site = try HealthSite()
    let page = site.app.handle(Fixture.get("/regimen/outcomes/health"))
    #expect(page.status == 200)
    #expect(page.bodyText.contains("action=\"/regimen/outcomes/health\" enctype=\"multipart/form-data\""))
    #expect(page.bodyText.contains("data-upload-progress"))
    #expect(site.app.handle(Fixture.get("/regimen/outcomes")).bodyText.contains("href=\"/regimen/outcomes/health\""))
}

@Test func anUploadedExportIsImportedOnceAndLeavesNoFileBehind() throws {
    #expect(!sampleExport.isEmpty)
    let site = try HealthSite()
    let before = site.vaultFiles
    let first = site.upload(sampleExport)
    #expect(first.status == 200)
    #expect(first.bodyText.contains("2 new health records imported; 0 were already in Cairn."))
    #expect(first.bodyText.contains(/records? of (a type|[0-9,]+ types) Cairn does not read (was|were) skipped/))
    let again = site.upload(sampleExport)
    #expect(again.bodyText.contains("0 new health records imported; 2 were already in Cairn."))
    #expect(site.vaultFiles == before)
    #expect(try site.cairn.health.dailyValues()["sleep_in_bed"]?.isEmpty == false)
}

@Test func aTruncatedExportImportsNothingAndSaysWhy() throws {
    let site = try HealthSite()
    let before = site.vaultFiles
    let response = site.upload(sampleExport.prefix(sampleExport.count / 2))
    #expect(response.status == 400)
    #expect(response.bodyText.contains("id=\"health-import-error\""))
    #expect(response.bodyText.contains("Nothing was imported."))
    #expect(!response.bodyText.contains("Nothing was imported. Nothing was imported."), "said once")
    #expect(response.bodyText.contains("aria-describedby=\"health-import-error\""), "the error belongs to the file field")
    #expect(try site.cairn.health.dailyValues().values.allSatisfy { $0.isEmpty })
    #expect(site.vaultFiles == before)
    #expect(site.upload(Data()).status == 400)
}

@Test func theHealthImportNeedsTheFormToken() throws {
    let site = try HealthSite()
    #expect(site.upload(sampleExport, csrf: nil).status == 403)
}

@Test func theRefusalSaysNothingWasImportedExactlyOnce() {
    #expect(
        RegimenHealthImportPage.nothingImported("The zip file is damaged or cannot be read.")
            == "The zip file is damaged or cannot be read. Nothing was imported.")
    let already = "The export declares XML entities, which Cairn does not expand. Nothing was imported."
    #expect(RegimenHealthImportPage.nothingImported(already) == already)
}

@Test func anUploadedHealthConnectExportIsImportedAndLeavesNoFileBehind() throws {
    let site = try HealthSite()
    let scratch = try Scratch()
    defer { scratch.remove() }
    var export = HealthConnectFixture()
    export.steps(
        1, start: HealthConnectFixture.millis("2026-03-01 08:00:00 +0100"), end: HealthConnectFixture.millis("2026-03-01 09:00:00 +0100"),
        count: 1200)
    export.bloodPressure(2, time: HealthConnectFixture.millis("2026-03-01 07:00:00 +0100"), systolic: 121, diastolic: 79)
    let zip = scratch.file("Health Connect.zip")
    try export.writeZip(to: zip, in: scratch)
    let before = site.vaultFiles
    let response = site.upload(try Data(contentsOf: zip))
    #expect(response.status == 200)
    #expect(response.bodyText.contains("3 new health records imported; 0 were already in Cairn."))
    // The database's copy is gone, and so is its entry in the (now made) registry of temporary artefacts.
    #expect(site.vaultFiles.subtracting([".artefacts"]) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: site.directory.appendingPathComponent(".artefacts").path).isEmpty)
    #expect(try site.cairn.health.dailyValues()["blood_pressure_systolic"]?.values.first == 121)
    let page = site.app.handle(Fixture.get("/regimen/outcomes/health"))
    #expect(page.bodyText.contains("Health Connect"))
}

@Test func aFileNamedLikeHealthConnectsDatabaseThatIsNotOneIsRefusedBesideTheField() throws {
    let site = try HealthSite()
    let scratch = try Scratch()
    defer { scratch.remove() }
    try Data("not a database".utf8).write(to: scratch.file("health_connect_export.db"))
    let zip = scratch.file("export.zip")
    try HealthConnectFixture.zip(scratch.url, members: ["health_connect_export.db"], to: zip)
    let response = site.upload(try Data(contentsOf: zip))
    #expect(response.status == 400)
    #expect(response.bodyText.contains("is not a Health Connect database"))
    #expect(response.bodyText.contains("aria-describedby=\"health-import-error\""))
}
