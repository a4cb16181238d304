import CairnCLI
import Testing

@testable import WebApp

/// Every command of the command line has its door on the web (a form, a download or the page that shows the same),
/// unless it is listed as exempt with the reason. A new command fails this test until it gets its web door or a reason.
@Test func everyCommandOfTheCommandLineHasAWebDoor() throws {
    let site = try RegimenSite()
    let router = site.app.router
    /// The web route (method and a sample path) that does what each CLI command does.
    let doors: [String: (HTTPMethod, String)] = [
        "skin areas": (.get, "/skin"),
        "skin timeline": (.get, "/skin/areas/a"),
        "skin compare": (.get, "/skin/areas/a/entries/e"),
        "skin trend": (.get, "/skin/areas/a/trend"),
        "smile list": (.get, "/smile"),
        "regimen products list": (.get, "/regimen/products"),
        "regimen products show": (.get, "/regimen/products/p"),
        "regimen schedules list": (.get, "/regimen/schedules"),
        "regimen schedules history": (.get, "/regimen/schedules/s/edit"),
        "regimen today": (.get, "/regimen"),
        "regimen ledger": (.get, "/regimen/ledger"),
        "regimen exposure": (.post, "/reports/regimen"),
        "regimen scan": (.post, "/regimen/products/scan"),
        "regimen supply list": (.get, "/regimen/products"),
        "regimen outcomes list": (.get, "/regimen/outcomes"),
        "regimen outcomes metrics": (.get, "/regimen/outcomes"),
        "regimen reminders show": (.get, "/settings/reminders"),
        "skin add-area": (.post, "/skin/areas"),
        "skin rename-area": (.post, "/skin/areas/a/rename"),
        "skin delete-area": (.post, "/skin/areas/a/delete"),
        "skin log": (.post, "/skin/areas/a/photos"),
        "skin note": (.post, "/skin/areas/a/entries/e/note"),
        "skin delete-entry": (.post, "/skin/areas/a/entries/e/delete"),
        "skin report": (.post, "/reports/skin/a"),
        "smile add": (.post, "/smile/upload"),
        "smile export": (.post, "/smile/export/e"),
        "smile compare": (.post, "/smile/side-by-side"),
        "smile delete": (.post, "/smile/delete/e"),
        "smile report": (.post, "/reports/smile"),
        "regimen products add": (.post, "/regimen/products/new"),
        "regimen products edit": (.post, "/regimen/products/p/edit"),
        "regimen products archive": (.post, "/regimen/products/p/archive"),
        "regimen products restore": (.post, "/regimen/products/p/restore"),
        "regimen schedules add": (.post, "/regimen/schedules/new"),
        "regimen schedules edit": (.post, "/regimen/schedules/s/edit"),
        "regimen schedules pause": (.post, "/regimen/schedules/s/pause"),
        "regimen schedules resume": (.post, "/regimen/schedules/s/resume"),
        "regimen schedules stop": (.post, "/regimen/schedules/s/stop"),
        "regimen take": (.post, "/regimen/doses/d/taken"),
        "regimen skip": (.post, "/regimen/doses/d/skipped"),
        "regimen correct": (.post, "/regimen/records/r/correct"),
        "regimen undo": (.post, "/regimen/records/r/undo"),
        "regimen export": (.get, "/regimen/ledger/export.csv"),
        "regimen import": (.post, "/regimen/ledger/import"),
        "regimen report": (.post, "/reports/regimen"),
        "regimen supply set": (.post, "/regimen/products/p/supply"),
        "regimen outcomes add": (.post, "/regimen/outcomes/entries"),
        "regimen outcomes correct": (.post, "/regimen/outcomes/entries/e/correct"),
        "regimen outcomes import": (.post, "/regimen/outcomes/import"),
        "regimen outcomes define": (.post, "/regimen/outcomes/metrics"),
        "regimen outcomes import-health": (.post, "/regimen/outcomes/health"),
        "regimen reminders set": (.post, "/settings/reminders"),
        "regimen reminders schedule": (.post, "/settings/reminders/schedules/s"),
        "regimen reminders area": (.post, "/settings/reminders/areas/a"),
        "regimen insights": (.post, "/regimen/insights/onset"),
        "backup create": (.post, "/settings/backup"),
        "settings lock": (.post, "/settings/lock/on"),
        "settings delete-all-data": (.post, "/settings/delete"),
        "export fhir": (.post, "/settings/export/fhir"),
        "regimen labels import": (.post, "/settings/label-database/import"),
        "regimen labels status": (.get, "/settings/label-database"),
        "regimen labels remove": (.post, "/settings/label-database/remove"),
        "regimen labels search": (.get, "/regimen/products/labels"),
        "regimen labels show": (.get, "/regimen/products/labels/1"),
        "regimen labels add": (.post, "/regimen/products/scan/confirm"),
        "regimen labels teach": (.post, "/regimen/products/labels/teach"),
    ]
    /// Commands with no web form, and why.
    let exempt: [String: String] = [
        "serve": "it is what starts the web app",
        "remind": "the reminder service itself; the web shows and sets its preferences",
        "skin compare-batch": "a research tool over files on disk; it stores nothing",
        "skin generate": "synthetic demo photos for trying Cairn out, not a person's record",
        "backup verify": "checks a backup file on disk before a restore; runs with the vault closed",
        "backup restore": "restores into a new vault folder, which the running web app cannot open",
        "doctor": "checks the vault from outside, also when the web app cannot start",
        "inspect": "lists the metadata of any file on disk; every photo the web keeps is rebuilt without it",
    ]
    var missing: [String] = []
    var unused = Set(doors.keys)
    func visit(_ entries: [CommandEntry], _ path: [String]) {
        for entry in entries {
            switch entry {
            case .group(let group): visit(group.children, path + [group.name])
            case .command(let type):
                let name = (path + [type.name]).joined(separator: " ")
                unused.remove(name)
                if exempt[name] != nil { continue }
                guard let (method, target) = doors[name] else {
                    missing.append("\(name): no web door named")
                    continue
                }
                guard case .found(let route, _) = router.match(method: method, path: target), route.method == method else {
                    missing.append("\(name): \(method.rawValue) \(target) is not a route")
                    continue
                }
            }
        }
    }
    visit(CairnCommandLine.commands, [])
    #expect(missing.isEmpty, "\(missing.joined(separator: "; "))")
    #expect(unused.isEmpty, "doors named for commands that do not exist: \(unused.sorted())")
}
