import CairnApp
import CairnCore
import Foundation
import HealthExport

/// `/regimen/outcomes/health`: import an Apple Health export (`export.zip` or `export.xml`) or a Health Connect
/// export (its zip) from the browser.
///
/// The upload arrives whole (the server's body limit applies, 64 MB by default: a zipped export of that size
/// holds about a gigabyte of XML); `HealthService.importExport(contents:)` reads it where it is in memory (no copy
/// is written to disk) and streams its records into the vault in batches under one import. The page shows
/// how much has been sent (`outcomes.js`), then the summary. Larger exports: `cairn regimen outcomes import`.
///
/// Routes (behind the session cookie; the POST needs the CSRF token):
/// - `GET /regimen/outcomes/health` the form;
/// - `POST /regimen/outcomes/health` (multipart, `file`): the summary, or the reason nothing was imported (400).
enum RegimenHealthImportPage {
    static func routes(_ health: HealthService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/outcomes/health") { _ in .html(render(csrfToken: csrfToken)) },
            route(.post, "/regimen/outcomes/health") { r in
                guard let data = r.request.formValue("file"), !data.isEmpty else {
                    return .html(
                        render(
                            csrfToken: csrfToken, error: "Choose the export.zip (or export.xml) from the Health app, or the zip from Health Connect."),
                        status: 400)
                }
                do {
                    return .html(render(csrfToken: csrfToken, summary: try health.importExport(contents: data)))
                } catch let error as HealthExportError {
                    return .html(render(csrfToken: csrfToken, error: nothingImported(error.userMessage)), status: 400)
                }
            },
        ]
    }

    /// The refusal, ending with "Nothing was imported." once (some messages say it already).
    static func nothingImported(_ message: String) -> String {
        message.hasSuffix("Nothing was imported.") ? message : message + " Nothing was imported."
    }

    static func render(csrfToken: String, summary: HealthImportSummary? = nil, error: String? = nil) -> String {
        var body =
            RegimenPages.intro(
                "Health import",
                lead:
                    "Read the export from Apple Health or Google Health Connect into Cairn: steps, sleep, resting heart rate, body mass, blood pressure, heart rate variability (SDNN, Apple) and heart rate (Health Connect). Cairn only reads it and never writes health data back."
            )
            + RegimenPages.subnav("/regimen/outcomes")
        if let summary {
            let lines = summary.sentences
            let warnings = summary.warningLines.map { line -> HTML in "<li>\(line)</li>" }
            let leftOut: HTML? = warnings.isEmpty ? nil : "<p>Left out, with their reason:</p><ul>\(warnings)</ul>"
            body += """
                <section class="card" aria-labelledby="health-import-result-title" id="health-import-result">
                <h2 id="health-import-result-title">Imported</h2>
                <p role="status">\(lines.joined(separator: " "))</p>
                \(leftOut)
                <p><a href="/regimen/outcomes">See the charts on the Outcomes page</a></p>
                </section>
                """
        }
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"health-import-error\" autofocus"
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"health-import-error\">\($0)</p>" }
        body += """
            <section class="card regimen-form" aria-labelledby="health-import-title">
            <h2 id="health-import-title">Choose the export</h2>
            <p>On the iPhone: Health app, your picture, "Export All Health Data". Choose the <code>export.zip</code> it makes (or the <code>export.xml</code> inside it).</p>
            <p>On Android: Health Connect's settings, "Backup and restore", export. Choose the zip it writes (it holds <code>health_connect_export.db</code>).</p>
            <p>Importing a newer export later adds only what is new. Files over 64 MB: use <code>cairn regimen outcomes import FILE.zip</code>.</p>
            <form method="post" action="/regimen/outcomes/health" enctype="multipart/form-data" id="health-import" data-upload-progress>\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="health-file">Health export (Apple Health or Health Connect)</label>
            <input type="file" id="health-file" name="file" accept=".zip,.xml,application/zip,text/xml" required\(invalid)>\(errorHTML)</div>
            <div class="form-actions"><button type="submit" class="button button-quiet">Import</button></div>
            <progress max="100" value="0" hidden>Sending</progress>
            <p class="help" role="status" hidden></p>
            </form>
            <script src="/assets/outcomes.js" defer></script>
            </section>
            """
        return Layout.page(title: "Health import", section: .regimen, body: body)
    }
}
