import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Regimen
import Testing

@testable import WebApp

private let faces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces")

/// Every page of the route table, in one browser session, audited by `PageAudit` (axe at 1280 and 390 px, and at
/// 390 px sideways overflow, overlapping and tiny text) in each state: an empty vault, a vault with data in every
/// journal, and after each of its forms is sent back empty (the error beside the field, or the notice after it).
///
/// The addresses come from the route table itself: a page added later is walked without a change here, and a
/// new kind of `{parameter}` fails until `Samples.values(for:in:)` knows a real value for it.
@Suite(.serialized) struct EveryPageBrowserTests {
    /// Real values for each `{parameter}` of the route table, from the vault with data.
    struct Samples {
        var skinArea = "", skinEntries: [String] = [], smileEntry = "", smileUploads: [String] = [], product = "", label = ""
        var schedule = "", records: [String] = [], day = ""

        func values(for parameter: String, in pattern: String) -> [String]? {
            switch (parameter, pattern.hasPrefix("/smile")) {
            case ("area", _): return [skinArea]
            case ("entry", false): return skinEntries
            case ("entry", true): return [smileEntry]
            case ("upload", _): return smileUploads
            case ("product", _): return [product]
            case ("schedule", _): return [schedule]
            case ("record", _): return records
            case ("day", _): return [day]
            case ("label", _): return [label]
            default: return nil
            }
        }
    }

    /// Each GET page's addresses: the pattern with every parameter filled in (every combination of samples).
    /// Assets are not pages; a pattern with a parameter that has no sample is recorded as a failure.
    static func addresses(_ routes: [Route], samples: Samples?) -> [String] {
        var out: [String] = []
        for route in routes where route.method == .get && !route.path.hasPrefix("/assets/") {
            var paths = [""]
            for segment in route.pattern {
                switch segment {
                case .literal(let text): paths = paths.map { "\($0)/\(text)" }
                case .parameter(let name):
                    guard let samples else {
                        paths = []
                        break
                    }
                    guard let values = samples.values(for: name, in: route.path) else {
                        Issue.record("no sample value for {\(name)} in \(route.path): add one to EveryPageBrowserTests.Samples")
                        paths = []
                        break
                    }
                    paths = paths.flatMap { p in values.map { "\(p)/\($0)" } }
                }
            }
            out += paths.map { $0.isEmpty ? "/" : $0 }
        }
        return out
    }

    /// The POST forms a page holds, one per address pattern (digits and ids folded), without the ones that
    /// delete something at once or download a file.
    static let formsScript = """
        var seen = {}, out = [];
        Array.prototype.forEach.call(document.querySelectorAll('form'), function (f, i) {
          if ((f.getAttribute('method') || 'get').toLowerCase() !== 'post') { return; }
          var action = new URL(f.getAttribute('action') || location.href, location.href).pathname;
          var confirmWord = f.querySelector('input[type=text], input:not([type])');
          if (/\\/delete$/.test(action) && !confirmWord) { return; }
          if (/^\\/reports\\//.test(action) || /^\\/smile\\/export\\//.test(action) || /\\/discard$/.test(action)) { return; }
          var key = action.replace(/[0-9a-f]{8,}|[0-9]+/g, '#');
          if (seen[key]) { return; }
          seen[key] = true;
          out.push([i, key]);
        });
        return out;
        """

    /// Empties the form's fields, drops the browser's own checks and sends it the way a browser without scripts
    /// does (`HTMLFormElement.submit` fires no submit handler).
    static let sendEmptyScript = """
        var f = document.querySelectorAll('form')[arguments[0]];
        f.querySelectorAll('input, textarea, select').forEach(function (e) {
          e.removeAttribute('required'); e.removeAttribute('min'); e.removeAttribute('max'); e.removeAttribute('pattern');
          if (e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && /^(text|number|date|time|search|email|url|)$/.test(e.type))) { e.value = ''; }
        });
        f.noValidate = true;
        window.__cairnBeforeSend = true;
        HTMLFormElement.prototype.submit.call(f);
        // The attribute, not `f.action`: a form with a control named "action" (the label review's buttons) shadows it.
        return new URL(f.getAttribute('action') || location.href, location.href).pathname;
        """

    @Test func everyPageOfTheRouteTablePassesTheAuditEmptyWithDataAndAfterAnError() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-every-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        var services = WebServices(cairn)
        services.labelScanner = try? LabelScanService.makeDefault()
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: services)
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let routes = WebApplication.routes(services, gate: VaultGate(open: services), csrfToken: "walk")

        let browser = try await WebDriver.launch()
        do {
            // An empty vault: onboarding first, then every page without a parameter, and a page that is not there.
            try await browser.open(server.loginURL)
            for address in Self.addresses(routes, samples: nil) where address.hasPrefix("/welcome/") {
                try await browser.open(origin + address)
            }
            try cairn.settings.completeOnboarding()
            for address in Self.addresses(routes, samples: nil) { try await browser.open(origin + address) }
            try await browser.open("\(origin)/skin/areas/no-such-area")

            // Data in every journal, then every page with every sample.
            let samples = try Self.fill(cairn)
            let pages = Self.addresses(routes, samples: samples)
            for address in pages { try await browser.open(origin + address) }
            for address in [
                "/smile?added=1", "/regimen/schedules?saved=1",
                "/skin/areas/\(samples.skinArea)/entries/\(samples.skinEntries.last ?? "")/note?new=1",
                "/skin/areas/\(samples.skinArea)/entries/\(samples.skinEntries.last ?? "")?added=1",
            ] {
                try await browser.open(origin + address)
            }

            // Each form sent back empty: the page that answers (an error beside its field, or a notice).
            var sent: Set<String> = []
            for address in pages {
                try await browser.open(origin + address)
                guard try await browser.evaluate("return document.contentType") as? String == "text/html" else { continue }
                let forms = (try await browser.evaluate(Self.formsScript) as? [[Any]] ?? []).filter { form in
                    sent.insert(form.last as? String ?? "").inserted
                }
                for (n, form) in forms.enumerated() {
                    if n > 0 { try await browser.open(origin + address) }
                    let action = try await browser.evaluate(Self.sendEmptyScript, arguments: [form[0]]) as? String ?? "?"
                    if try await Self.waitForNewDocument(browser) {
                        try await browser.audit("after sending the form to \(action) empty")
                    }
                }
            }
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Waits until the page that `sendEmptyScript` left has been replaced (a download leaves it in place).
    static func waitForNewDocument(_ browser: WebDriver) async throws -> Bool {
        for _ in 0..<80 {
            try await Task.sleep(for: .milliseconds(100))
            let replaced = try? await browser.evaluate("return window.__cairnBeforeSend !== true && document.readyState === 'complete'")
            if replaced as? Bool == true { return true }
        }
        return false
    }

    /// A vault with something in every journal: a Skin area with three photos, two Smile crops and two uploads
    /// waiting for their crop (a face, and a photo without one), a product on a daily schedule with a taken and a
    /// skipped dose and an extra, and outcome values.
    static func fill(_ cairn: CairnApplication) throws -> Samples {
        var samples = Samples()
        let area = try cairn.skin.addArea(name: "Left forearm", bodyLocation: "inside, below the elbow", guidance: "Desk lamp, arm flat")
        let entries = try SkinDemo.generate(count: 3, seed: 3, into: area.id, service: cairn.skin, now: Date())
        samples.skinArea = area.id.rawValue
        samples.skinEntries = [entries.first, entries.last].compactMap { $0?.id.rawValue }

        for name in ["fr_obama.jpg", "fr_biden.jpg"] {
            let upload = try cairn.smile.holdUpload(try Data(contentsOf: faces.appendingPathComponent(name)))
            samples.smileEntry = try cairn.smile.confirmUpload(upload.id, square: nil, note: name == "fr_biden.jpg" ? "after the new retainer" : "")
                .id.rawValue
        }
        for name in ["fr_obama.jpg", "dogs.jpg"] {
            samples.smileUploads.append(try cairn.smile.holdUpload(try Data(contentsOf: faces.appendingPathComponent(name))).id)
        }

        let typed = try Product(
            name: "Vitamin D3", form: .capsule, servingSize: try Amount(1, .count),
            ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: "Vitamin D3 (as cholecalciferol)", amount: try Amount(25, .mcg))])
        let product = try cairn.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
        samples.product = product.product.id.rawValue
        let today = cairn.regimen.today()
        samples.schedule = try cairn.regimen.addSchedule(
            try SchedulePlan(
                productID: product.product.id, times: ["00:00", "23:59"].compactMap { TimeSlot(parsing: $0) },
                recurrence: .daily, startDay: today.adding(days: -6))
        ).scheduleID.rawValue
        let doses = try cairn.regimen.doses(on: today)
        if let first = doses.first { samples.records.append(try cairn.regimen.checkIn(first.doseID, status: .taken).entry.id.rawValue) }
        for dose in try cairn.regimen.doses(on: today.adding(days: -1)) { _ = try cairn.regimen.checkIn(dose.doseID, status: .skipped) }
        // A logged entry, a replaced one (corrected) and an undo: each shows its own page.
        let corrected = try cairn.regimen.logExtra(product.product.id)
        samples.records += [corrected.id.rawValue, try cairn.regimen.correct(corrected.id, status: .skipped).id.rawValue]
        samples.day = today.adding(days: -1).description
        for offset in 0..<14 { _ = try cairn.outcomes.add(metricID: "energy", value: Double(2 + offset % 3), on: today.adding(days: -offset)) }
        // A label database of 148 real labels in DSLD's format, and one of its labels.
        let scratch = try Scratch()
        defer { scratch.remove() }
        try DSLDFixtures.jsonArray(try DSLDFixtures.labels()).write(to: scratch.file("labels.json"))
        _ = try cairn.labels.importFile(atPath: scratch.file("labels.json").path)
        samples.label = "1027"
        return samples
    }
}
