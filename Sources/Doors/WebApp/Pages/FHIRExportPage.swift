import CairnApp
import CairnCore
import Foundation

/// `/settings/export/fhir`: the Regimen and outcomes as one FHIR R4 document (`FHIRExportService`), downloaded.
///
/// Routes (behind the session cookie; the POST needs the CSRF token):
/// - `GET /settings/export/fhir` the form (days, journals, an optional name);
/// - `POST /settings/export/fhir` the file as a download, or the form with the refusal beside its field (400).
enum FHIRExportPage {
    static func routes(_ fhir: FHIRExportService, csrfToken: String) -> [Route] {
        [
            route(.get, "/settings/export/fhir") { _ in .html(render(csrfToken: csrfToken)) },
            route(.post, "/settings/export/fhir") { r in
                var form = Form(from: r.form["from"] ?? "", to: r.form["to"] ?? "", name: r.form["name"] ?? "")
                form.regimen = r.form["regimen"] == "on"
                form.outcomes = r.form["outcomes"] == "on"
                var from: LocalDay?
                var to: LocalDay?
                do { from = try r.form.value("from", as: LocalDay.self) } catch let error as CairnError { form.problems["from"] = error.userMessage }
                do { to = try r.form.value("to", as: LocalDay.self) } catch let error as CairnError { form.problems["to"] = error.userMessage }
                var journals: FHIRJournals = []
                if form.regimen { journals.insert(.regimen) }
                if form.outcomes { journals.insert(.outcomes) }
                if journals.isEmpty { form.problems["journals"] = "Tick at least one journal." }
                guard form.problems.isEmpty else { return .html(render(csrfToken: csrfToken, form: form), status: 400) }
                let request: FHIRExportRequest
                do {
                    request = try FHIRExportRequest(from: from, to: to, journals: journals, patientName: form.name)
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    form.problems[error is TextInputError ? "name" : "to"] = error.userMessage
                    return .html(render(csrfToken: csrfToken, form: form), status: 400)
                }
                return Response(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/fhir+json"), ("Cache-Control", "no-store"),
                        ("Content-Disposition", "attachment; filename=\"\(FHIRExportService.suggestedFileName)\""),
                    ],
                    body: try fhir.bundle(request))
            },
        ]
    }

    /// What the form holds when it is sent back.
    struct Form {
        var from = ""
        var to = ""
        var name = ""
        var regimen = true
        var outcomes = true
        var problems: [String: String] = [:]
    }

    static func render(csrfToken: String, form: Form = Form()) -> String {
        func error(_ field: String) -> (html: HTML, attributes: HTML) {
            guard let message = form.problems[field] else { return ("", "") }
            return (
                "<p class=\"field-error\" role=\"alert\" id=\"fhir-\(field)-error\">\(message)</p>",
                " aria-invalid=\"true\" aria-describedby=\"fhir-\(field)-error\""
            )
        }
        let fromError = error("from")
        let toError = error("to")
        let nameError = error("name")
        let journalsError = error("journals")
        let regimenChecked: HTML = form.regimen ? " checked" : ""
        let outcomesChecked: HTML = form.outcomes ? " checked" : ""
        let body: HTML = """
            <div class="page-intro"><h1>Export for a clinician (FHIR)</h1>\
            <p class="lead">One file in FHIR R4, the format a clinic's system reads: your products, the doses you logged as taken or skipped, and your outcome values by day. It says that these are your own records, not a medical record. No photos.</p></div>
            <section class="card regimen-form" aria-labelledby="fhir-title">
            <h2 id="fhir-title">What goes in the file</h2>
            <form method="post" action="/settings/export/fhir" class="stack" id="fhir-export">\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="fhir-from">From (YYYY-MM-DD, empty: the first day logged)</label>
            <input type="text" id="fhir-from" name="from" inputmode="numeric" autocomplete="off" value="\(form.from)"\(fromError.attributes)>\(fromError.html)</div>
            <div class="stack"><label for="fhir-to">To (YYYY-MM-DD, empty: today)</label>
            <input type="text" id="fhir-to" name="to" inputmode="numeric" autocomplete="off" value="\(form.to)"\(toError.attributes)>\(toError.html)</div>
            <fieldset class="stack"\(journalsError.attributes)><legend>Journals</legend>
            <label><input type="checkbox" name="regimen" value="on"\(regimenChecked)> Regimen: products and doses</label>
            <label><input type="checkbox" name="outcomes" value="on"\(outcomesChecked)> Outcomes: values by day</label>\(journalsError.html)</fieldset>
            <div class="stack"><label for="fhir-name">Your name in the file (optional; empty: nothing that names you)</label>
            <input type="text" id="fhir-name" name="name" autocomplete="off" value="\(form.name)"\(nameError.attributes)>\(nameError.html)</div>
            <div class="form-actions"><button type="submit" class="button" id="fhir-download">Download the FHIR file</button>
            <a class="button button-quiet" href="/settings">Back to Settings</a></div>
            </form>
            </section>
            """
        return Layout.page(title: "Export for a clinician (FHIR)", section: .settings, body: body)
    }
}
