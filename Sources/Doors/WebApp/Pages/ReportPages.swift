import CairnApp
import CairnCore
import Foundation
import Regimen
import Reports
import Skin

/// The PDF reports on the web: each is a preview page that says exactly what the file will hold, then a download
/// (a form post with the CSRF token, so it works without JavaScript). The PDF is made in memory for the response
/// and stored nowhere.
///
/// - `GET /reports/skin/AREA`, `POST /reports/skin/AREA` (the Skin photo log of one area)
/// - `GET /reports/smile`, `POST /reports/smile` (the Smile progress sheet)
/// - `GET /reports/regimen?from=&to=`, `POST /reports/regimen` (the Regimen summary of a period)
enum ReportPages {
    static func routes(_ reports: ReportService, skin: SkinService, regimen: RegimenService, csrfToken: String) -> [Route] {
        @Sendable func skinLog(_ r: RouteRequest) throws -> (TrackingArea, Report) {
            let area = try skin.area(try SkinRoutes.area(r))
            return (area, try reports.skinPhotoLog(area: area.id, paper: paper(r)))
        }
        return [
            route(.get, "/reports/skin/{area}") { r in
                let (area, report) = try skinLog(r)
                return .html(
                    preview(
                        report, title: "PDF photo log",
                        lead: "A PDF of every photo of \(area.name), to keep or to show someone. Cairn writes the file; where it goes is up to you.",
                        action: "/reports/skin/\(area.id.rawValue)", back: (SkinPages.areaPath(area.id), "Back to \(area.name)"),
                        section: .skin, csrfToken: csrfToken))
            },
            route(.post, "/reports/skin/{area}") { r in try download(try skinLog(r).1, reports: reports) },
            route(.get, "/reports/smile") { r in
                .html(
                    preview(
                        try reports.smileProgressSheet(paper: paper(r)), title: "PDF progress sheet",
                        lead: "A PDF of your smile crops in date order. Only the anonymised crops go in it, nothing else.",
                        action: "/reports/smile", back: ("/smile", "Back to Smile"), section: .smile, csrfToken: csrfToken))
            },
            route(.post, "/reports/smile") { r in try download(try reports.smileProgressSheet(paper: paper(r)), reports: reports) },
            route(.get, "/reports/regimen") { r in try regimenSummary(r, source: r.query, reports: reports, regimen: regimen, csrfToken: csrfToken) },
            route(.post, "/reports/regimen") { r in try regimenSummary(r, source: r.form, reports: reports, regimen: regimen, csrfToken: csrfToken) },
        ]
    }

    /// The paper the download form chose (A4 unless "letter").
    static func paper(_ r: RouteRequest) -> PaperSize { PaperSize(parsing: r.form["paper"] ?? r.query["paper"] ?? "") ?? .a4 }

    /// The preview (GET) or the download (POST) of the summary of the period the form names (default: the last 90
    /// days); a period that cannot be read is shown beside its fields.
    static func regimenSummary(
        _ r: RouteRequest, source: [String: String], reports: ReportService, regimen: RegimenService,
        csrfToken: String
    ) throws -> Response {
        let fromText = source["from"] ?? ""
        let toText = source["to"] ?? ""
        let details = source["details"] != "no"
        let period: ReportPeriod
        do {
            period = try ReportPeriod(typedFrom: fromText, typedTo: toText, today: regimen.today())
        } catch let problems as FieldProblems<ReportPeriod.Field> {
            let form = regimenPeriodForm(from: fromText, to: toText, details: details, problems: problems)
            let body = intro("PDF summary", lead: regimenLead) + form
            return .html(Layout.page(title: "PDF summary", section: .regimen, body: body), status: 400)
        }
        let periodForm = regimenPeriodForm(from: period.from.description, to: period.to.description, details: details, problems: nil)
        let report = try reports.regimenSummary(period, paper: paper(r), insightDetails: details)
        if r.request.method == .post { return try download(report, reports: reports) }
        return .html(
            preview(
                report, title: "PDF summary", lead: regimenLead, action: "/reports/regimen", back: ("/regimen/ledger", "Back to the ledger"),
                section: .regimen, csrfToken: csrfToken, before: periodForm,
                hidden: [("from", period.from.description), ("to", period.to.description), ("details", details ? "yes" : "no")]))
    }

    static let regimenLead =
        "A PDF of one period to take to an appointment: products, schedules, what was logged, ingredient totals, outcome series and insights."

    static func download(_ report: Report, reports: ReportService) throws -> Response {
        Response(
            status: 200,
            headers: [
                ("Content-Type", "application/pdf"), ("Cache-Control", "no-store"),
                ("Content-Disposition", "attachment; filename=\"\(report.fileName)\""),
            ],
            body: try reports.pdf(report))
    }

    static func intro(_ title: String, lead: String) -> HTML {
        "<div class=\"page-intro\"><h1>\(title)</h1><p class=\"lead\">\(lead)</p></div>"
    }

    /// The period form; `problems` are shown beside the day they are about, the period's own under both.
    static func regimenPeriodForm(from: String, to: String, details: Bool = true, problems: FieldProblems<ReportPeriod.Field>?) -> HTML {
        func error(_ field: ReportPeriod.Field, _ id: String) -> (html: HTML, describedBy: HTML) {
            guard let messages = problems?.messages(for: field), !messages.isEmpty else { return ("", "") }
            let html: HTML = "<p class=\"field-error\" role=\"alert\" id=\"\(id)\">\(messages.joined(separator: " "))</p>"
            return (html, " aria-describedby=\"\(id)\" aria-invalid=\"true\"")
        }
        let fromError = error(.from, "report-from-error")
        let toError = error(.to, "report-to-error")
        let periodError = error(.period, "report-period-error")
        return """
            <form method="get" action="/reports/regimen" class="card report-period" aria-labelledby="period-title">
            <h2 id="period-title">Period</h2>
            <div class="report-period-fields">
            <div class="stack"><label for="report-from">First day</label><input \(Layout.dateField) id="report-from" name="from" value="\(from)" required\(fromError.describedBy)>\(fromError.html)</div>
            <div class="stack"><label for="report-to">Last day</label><input \(Layout.dateField) id="report-to" name="to" value="\(to)" required\(toError.describedBy)>\(toError.html)</div>
            </div>
            \(periodError.html)
            <fieldset class="report-paper"><legend>Insight details (figures, conditions, limitations)</legend>
            <label><input type="radio" name="details" value="yes"\(details ? " checked" as HTML : "")> In an appendix</label>
            <label><input type="radio" name="details" value="no"\(details ? "" : " checked" as HTML)> Leave out (each insight's sentence and disclaimer stay)</label>
            </fieldset>
            <div class="form-actions"><button type="submit" class="button button-quiet" id="report-period-show">Show what it will hold</button></div>
            </form>
            """
    }

    /// The preview: what the file will hold, its pages, and the download form with the paper choice.
    static func preview(
        _ report: Report, title: String, lead: String, action: String, back: (String, String), section: Layout.Section,
        csrfToken: String, before: HTML = "", hidden: [(String, String)] = []
    ) -> String {
        let pagesA4 = report.pageCount
        let items = HTML.join(report.contents.map { item -> HTML in "<li>\(item)</li>" }, separator: "\n")
        let hiddenFields = hidden.map { field -> HTML in "<input type=\"hidden\" name=\"\(field.0)\" value=\"\(field.1)\">" }
        let photos = report.photoCount == 0 ? "" : " and \(report.photoCount) photo\(report.photoCount == 1 ? "" : "s") (not encoded again)"
        let pagesSuffix: HTML = pagesA4 == 1 ? "" : "s"
        let a4Checked: HTML = report.document.paper == .a4 ? " checked" : ""
        let letterChecked: HTML = report.document.paper == .letter ? " checked" : ""
        let body =
            intro(title, lead: lead) + before + """
                <section class="card report-preview" aria-labelledby="holds-title">
                <h2 id="holds-title">What the file will hold</h2>
                <ol class="report-contents" id="report-contents">
                \(items)
                </ol>
                <p class="help" id="report-size">About \(pagesA4) page\(pagesSuffix) on \(report.document.paper.label)\(photos). Nothing is kept in Cairn after the download.</p>
                <form method="post" action="\(action)" class="stack">\(Layout.csrfField(csrfToken))\(hiddenFields)
                <fieldset class="report-paper"><legend>Paper</legend>
                <label><input type="radio" name="paper" value="a4"\(a4Checked)> A4</label>
                <label><input type="radio" name="paper" value="letter"\(letterChecked)> US Letter</label>
                </fieldset>
                <div class="form-actions"><button type="submit" class="button" id="report-download">Download \(report.fileName)</button>
                <a class="button button-quiet" href="\(back.0)">\(back.1)</a></div>
                </form>
                </section>
                """
        return Layout.page(title: title, section: section, body: body)
    }
}
