import CairnApp
import CairnCore
import Foundation
import Regimen

/// `GET /regimen/ledger?product=&from=&to=&page=`: the intake history, newest first, 50 rows a page;
/// `GET /regimen/ledger/export.csv|json`: the whole log as `regimen export` writes it (a download).
/// Corrected rows stay in view, labelled "replaced"; skipped rows read "skipped" and never count as taken.
enum RegimenLedgerPage {
    /// Rows a page.
    static let pageSize = 50

    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/ledger") { r in try render(request: r.request, regimen: regimen, csrfToken: csrfToken) },
            route(.post, "/regimen/ledger/import") { r in try importHistory(request: r.request, regimen: regimen, csrfToken: csrfToken) },
        ]
            + LedgerExportFormat.allCases.map { format in
                route(.get, "/regimen/ledger/export.\(format.rawValue)") { _ in
                    let type = format == .csv ? "text/csv; charset=utf-8" : "application/json"
                    let name = "cairn-ledger-\(regimen.today()).\(format.rawValue)"
                    return Response(
                        status: 200, headers: [("Content-Type", type), ("Content-Disposition", "attachment; filename=\"\(name)\"")],
                        body: Data(try regimen.exportLedger(as: format).utf8))
                }
            }
    }

    static func render(
        request: Request, regimen: RegimenService, csrfToken: String,
        importResult: (message: String, lines: [String], failed: Bool)? = nil
    ) throws -> Response {
        let productText = (request.query["product"] ?? "").trimmingCharacters(in: .whitespaces)
        let fromText = (request.query["from"] ?? "").trimmingCharacters(in: .whitespaces)
        let toText = (request.query["to"] ?? "").trimmingCharacters(in: .whitespaces)
        let pageNumber = max(1, Int(request.query["page"] ?? "") ?? 1)
        let products = try regimen.products(includingArchived: true)
        var problems: [String] = []
        func day(_ name: String, _ label: String) -> LocalDay? {
            do { return try request.query.value(name, as: LocalDay.self) } catch let refusal as any CairnError {
                problems.append("\(label): \(refusal.userMessage)")
                return nil
            } catch { preconditionFailure("parsers throw CairnError") }
        }
        let from = day("from", "First day")
        let to = day("to", "Last day")
        if let from, let to, to < from { problems.append(ReportPeriodError.endsBeforeStart.userMessage) }
        let productID = productText.isEmpty ? nil : ProductID(productText)
        if let productID, !products.contains(where: { $0.product.id == productID }) { problems.append("That product is not in your list.") }

        let filters = filterForm(products: products, product: productText, from: fromText, to: toText)
        let head =
            RegimenPages.intro(
                "Ledger", lead: "Every dose you logged, newest first. A correction adds a new row; the row it replaces stays here, marked replaced.")
            + RegimenPages.subnav("/regimen/ledger")
        guard problems.isEmpty else {
            let body = head + RegimenPages.message(notice: nil, error: problems.joined(separator: " ")) + filters
            return .html(Layout.page(title: "Ledger", section: .regimen, body: body), status: 400)
        }
        let page = try regimen.ledger(
            LedgerQuery(
                from: from, to: to, productID: productID, limit: pageSize,
                offset: (pageNumber - 1) * pageSize))
        let week = try regimen.lastSevenDays()
        let adherence: HTML =
            week.total == 0
            ? ""
            : "<p class=\"regimen-adherence\" id=\"ledger-week\"><strong>Last seven days:</strong> \(week.sentence) (scheduled doses due so far).</p>"
        var body: HTML =
            head + adherence + filters
            + "<p class=\"regimen-toolbar\"><a class=\"button button-quiet\" href=\"/reports/regimen\" id=\"report-link\">PDF summary for an appointment</a> <a class=\"button button-quiet\" href=\"/regimen/ledger/export.csv\" id=\"ledger-export-csv\" download>Download the whole log (CSV)</a> <a class=\"button button-quiet\" href=\"/regimen/ledger/export.json\" id=\"ledger-export-json\" download>JSON</a></p>"
        if page.entries.isEmpty {
            let choice = from != nil || to != nil || productID != nil ? " for this choice" : " yet"
            body +=
                "<p class=\"notice\" id=\"regimen-ledger-empty\">No doses logged\(choice). Doses you tick off on <a href=\"/regimen\">Today</a> show up here.</p>"
        } else {
            body += table(
                page.entries, lookup: { try? regimen.record($0) }, amount: { (try? regimen.amountText(of: $0)) ?? RegimenPages.servings($0.servings) }
            )
        }
        var pager: [HTML] = []
        func link(_ number: Int, _ label: String, _ rel: String) -> HTML {
            var items: [URLQueryItem] = []
            if !productText.isEmpty { items.append(URLQueryItem(name: "product", value: productText)) }
            if !fromText.isEmpty { items.append(URLQueryItem(name: "from", value: fromText)) }
            if !toText.isEmpty { items.append(URLQueryItem(name: "to", value: toText)) }
            items.append(URLQueryItem(name: "page", value: String(number)))
            var components = URLComponents()
            components.queryItems = items
            let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
            return "<a href=\"/regimen/ledger\(query)\" rel=\"\(rel)\">\(label)</a>"
        }
        if pageNumber > 1 { pager.append(link(pageNumber - 1, "Newer", "prev")) }
        if page.nextOffset != nil { pager.append(link(pageNumber + 1, "Older", "next")) }
        if !pager.isEmpty {
            body += "<nav class=\"regimen-pager\" aria-label=\"Ledger pages\"><p>Page \(pageNumber) \(HTML.join(pager, separator: " "))</p></nav>"
        }
        body += importCard(result: importResult, csrfToken: csrfToken)
        return .html(Layout.page(title: "Ledger", section: .regimen, body: body), status: importResult?.failed == true ? 400 : 200)
    }

    /// `POST /regimen/ledger/import` (multipart, `file`): imports an intake history CSV through
    /// `RegimenService.importIntakeHistory`, then shows the ledger with the result of every line, or every bad
    /// line (400; nothing was saved).
    static func importHistory(request: Request, regimen: RegimenService, csrfToken: String) throws -> Response {
        let page = Request(method: .get, path: "/regimen/ledger", headers: request.headers)
        guard let data = request.formValue("file"), !data.isEmpty else {
            return try render(
                request: page, regimen: regimen, csrfToken: csrfToken,
                importResult: ("Choose a CSV file to import.", [], true))
        }
        do {
            let name = request.formValue("file.filename").map { String(decoding: $0, as: UTF8.self) } ?? ""
            let report = try regimen.importIntakeHistory(data, sourceName: name)
            let lines = report.lines.map { line -> String in
                let what = line.result == .added ? "added" : line.result == .unchanged ? "already there" : "added as a correction"
                return
                    "Line \(line.line): \(line.entry.productName), \(line.entry.status.rawValue), \(DateText.string(line.entry.takenAt, .numericMinute, in: line.entry.timeZone)): \(what)"
            }
            return try render(request: page, regimen: regimen, csrfToken: csrfToken, importResult: (report.summary, lines, false))
        } catch let error as ImportLinesError {
            return try render(
                request: page, regimen: regimen, csrfToken: csrfToken,
                importResult: (error.userMessage, error.listedProblems, true))
        } catch let error as CSVError {
            return try render(request: page, regimen: regimen, csrfToken: csrfToken, importResult: (error.userMessage, [], true))
        }
    }

    /// The form that imports past doses, with the result of the last import.
    static func importCard(result: (message: String, lines: [String], failed: Bool)?, csrfToken: String) -> HTML {
        var resultHTML: HTML = ""
        if let result {
            let items = result.lines.map { line -> HTML in "<li>\(line)</li>" }
            if result.failed {
                let list: HTML = items.isEmpty ? "" : "<ul id=\"ledger-import-problems\">\(items)</ul>"
                resultHTML = "<div class=\"form-error\" role=\"alert\" id=\"ledger-import-error\"><p>\(result.message)</p>\(list)</div>"
            } else {
                let list: HTML = items.isEmpty ? "" : "<details><summary>Every line</summary><ul id=\"ledger-import-lines\">\(items)</ul></details>"
                resultHTML = "<p class=\"notice\" role=\"status\" id=\"ledger-import-summary\">\(result.message)</p>\(list)"
            }
        }
        return """
            <section class="card regimen-form" aria-labelledby="ledger-import-title">
            <h2 id="ledger-import-title">Import past doses</h2>
            <p>From another app's export: a CSV file with a header row naming the columns <code>date</code>, <code>time</code>, <code>time zone</code>, <code>product</code>, <code>amount</code>, <code>unit</code> and <code>status</code> (taken or skipped). Products are matched by name. A file with any line Cairn cannot read imports nothing, and each such line is listed. Importing the same file again adds nothing.</p>
            \(resultHTML)
            <form method="post" action="/regimen/ledger/import" enctype="multipart/form-data" id="ledger-import">\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="ledger-file">CSV file</label>
            <input type="file" id="ledger-file" name="file" accept=".csv,text/csv" required></div>
            <div class="form-actions"><button type="submit" class="button button-quiet">Import</button></div>
            </form>
            </section>
            """
    }

    /// The filter form as text (`filterForm` is what the page inserts).
    static func form(products: [StoredProduct], product: String, from: String, to: String) -> String {
        filterForm(products: products, product: product, from: from, to: to).rendered
    }

    /// The form that filters the ledger by product and days.
    static func filterForm(products: [StoredProduct], product: String, from: String, to: String) -> HTML {
        func selected(_ on: Bool) -> HTML { on ? " selected" : "" }
        let options: [HTML] =
            ["<option value=\"\"\(selected(product.isEmpty))>All products</option>"]
            + products.map { p -> HTML in
                let id = p.product.id.rawValue
                return "<option value=\"\(id)\"\(selected(id == product))>\(p.product.name)</option>"
            }
        return """
            <form method="get" action="/regimen/ledger" class="card regimen-filter" aria-label="Filter the ledger">
            <div class="stack"><label for="ledger-product">Product</label>
            <select id="ledger-product" name="product">\(options)</select></div>
            <div class="stack"><label for="ledger-from">From</label>
            <input \(Layout.dateField) id="ledger-from" name="from" value="\(from)"></div>
            <div class="stack"><label for="ledger-to">To</label>
            <input \(Layout.dateField) id="ledger-to" name="to" value="\(to)"></div>
            <div class="form-actions"><button type="submit" class="button button-quiet">Show</button></div>
            </form>
            """
    }

    /// A short form of a record id, for the row's `id` attribute (never shown).
    static func short(_ id: IntakeRecordID) -> String { String(id.rawValue.prefix(8)) }

    /// A record in words for the "corrects" and "replaced by" notes: "taken at 2026-03-10 08:12".
    static func describe(_ e: LedgerEntry) -> String {
        "\(statusWord(e.status)) at \(DateText.string(e.takenAt, .numericMinute, in: e.timeZone))"
    }

    static func statusWord(_ status: IntakeStatus) -> String {
        switch status {
        case .taken: "taken"
        case .skipped: "skipped"
        case .undone: "undone"
        case .missed: "not taken"
        }
    }

    /// What a record was: "scheduled for 2026-03-10 08:00", "as needed", "extra dose", "imported from history.csv".
    static func origin(_ e: LedgerEntry) -> String {
        if let file = e.importedFrom { return file.isEmpty ? "imported from another app" : "imported from \(file)" }
        switch e.kind {
        case .scheduled: return e.occurrence.map { "scheduled for \($0.day) \($0.slot)" } ?? "scheduled"
        case .asNeeded: return "as needed"
        case .extra: return "extra dose"
        }
    }

    /// The ledger table. `lookup` finds a record the row names (the one it corrects or the one correcting it),
    /// so each note says what it corrects in words; internal record ids never show.
    static func table(
        _ entries: [LedgerEntry], lookup: (IntakeRecordID) -> LedgerEntry? = { _ in nil },
        amount: (LedgerEntry) -> String = { RegimenPages.servings($0.servings) }
    ) -> HTML {
        let byID = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func find(_ id: IntakeRecordID) -> LedgerEntry? { byID[id] ?? lookup(id) }
        let rows = entries.map { e -> HTML in
            var notes = [origin(e)]
            if let old = e.supersedes {
                let target = find(old)
                if e.isUndo {
                    notes.append(target.map { "undoes the entry \(describe($0))" } ?? "undoes an earlier entry")
                } else if target?.isUndo == true {
                    notes.append("logged again after an undo")
                } else {
                    notes.append(target.map { "corrects the entry \(describe($0))" } ?? "corrects an earlier entry")
                }
            }
            if let by = e.supersededBy {
                let later = find(by)
                if later?.isUndo == true {
                    notes.append("undone (recorded \(DateText.string(later!.recordedAt, .numericMinute, in: later!.timeZone)))")
                } else {
                    notes.append(later.map { "replaced: corrected to \(describe($0))" } ?? "replaced by a later entry")
                }
            }
            let status = statusWord(e.status)
            let change: HTML =
                e.isCurrent && !e.isUndo
                ? " <a href=\"/regimen/records/\(e.id.rawValue)\" class=\"regimen-change\">Correct or undo<span class=\"visually-hidden\">: \(e.productName), \(describe(e))</span></a>"
                : ""
            let classes = "regimen-row regimen-\(e.status.rawValue)" + (e.isCurrent ? "" : " regimen-replaced")
            let statusHTML: HTML = e.isCurrent ? "\(status)" : "<s>\(status)</s> (replaced)"
            return """
                <tr class="\(classes)" id="record-\(short(e.id))">
                <td>\(DateText.string(e.takenAt, .numericMinute, in: e.timeZone))</td>
                <td>\(e.productName)</td>
                <td class="regimen-status">\(statusHTML)</td>
                <td>\(amount(e))</td>
                <td>\(notes.joined(separator: "; "))\(change)</td>
                </tr>
                """
        }
        return """
            <div class="regimen-table-wrap">
            <table class="regimen-ledger">
            <caption class="visually-hidden">Logged doses, newest first</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Product</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Details</th></tr></thead>
            <tbody>
            \(HTML.join(rows, separator: "\n"))
            </tbody>
            </table>
            </div>
            """
    }
}
