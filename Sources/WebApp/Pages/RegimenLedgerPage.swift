import CairnApp
import CairnCore
import Foundation
import Regimen

/// `GET /regimen/ledger?product=&from=&to=&page=`: the intake history, newest first, 50 rows a page.
/// Corrected rows stay in view, labelled "replaced"; skipped rows read "skipped" and never count as taken.
enum RegimenLedgerPage {
    /// Rows a page.
    static let pageSize = 50

    static func render(request: Request, regimen: RegimenService) throws -> Response {
        let productText = (request.query["product"] ?? "").trimmingCharacters(in: .whitespaces)
        let fromText = (request.query["from"] ?? "").trimmingCharacters(in: .whitespaces)
        let toText = (request.query["to"] ?? "").trimmingCharacters(in: .whitespaces)
        let pageNumber = max(1, Int(request.query["page"] ?? "") ?? 1)
        let products = try regimen.products()
        var problems: [String] = []
        let from = fromText.isEmpty ? nil : LocalDay(parsing: fromText)
        let to = toText.isEmpty ? nil : LocalDay(parsing: toText)
        if !fromText.isEmpty, from == nil { problems.append("The first day must be a date like 2026-01-31.") }
        if !toText.isEmpty, to == nil { problems.append("The last day must be a date like 2026-01-31.") }
        if let from, let to, to < from { problems.append("The last day comes before the first day.") }
        let productID = productText.isEmpty ? nil : ProductID(productText)
        if let productID, !products.contains(where: { $0.product.id == productID }) { problems.append("That product is not in your list.") }

        let filters = form(products: products, product: productText, from: fromText, to: toText)
        let head = RegimenPages.intro("Ledger", lead: "Every dose you logged, newest first. A correction adds a new row; the row it replaces stays here, marked replaced.")
            + RegimenPages.subnav("/regimen/ledger")
        guard problems.isEmpty else {
            let body = head + RegimenPages.message(notice: nil, error: problems.joined(separator: " ")) + filters
            return .html(Layout.page(title: "Ledger", section: .regimen, body: body), status: 400)
        }
        let page = try regimen.ledger(LedgerQuery(from: from, to: to, productID: productID, limit: pageSize,
                                                  offset: (pageNumber - 1) * pageSize))
        var body = head + filters
        if page.entries.isEmpty {
            body += "<p class=\"notice\" id=\"regimen-ledger-empty\">No doses logged\(from != nil || to != nil || productID != nil ? " for this choice" : " yet"). Doses you tick off on <a href=\"/regimen\">Today</a> show up here.</p>"
        } else {
            body += table(page.entries)
        }
        var pager: [String] = []
        func link(_ number: Int, _ label: String, _ rel: String) -> String {
            var items: [URLQueryItem] = []
            if !productText.isEmpty { items.append(URLQueryItem(name: "product", value: productText)) }
            if !fromText.isEmpty { items.append(URLQueryItem(name: "from", value: fromText)) }
            if !toText.isEmpty { items.append(URLQueryItem(name: "to", value: toText)) }
            items.append(URLQueryItem(name: "page", value: String(number)))
            var components = URLComponents()
            components.queryItems = items
            return "<a href=\"/regimen/ledger\(HTML.escape(components.percentEncodedQuery.map { "?" + $0 } ?? ""))\" rel=\"\(rel)\">\(label)</a>"
        }
        if pageNumber > 1 { pager.append(link(pageNumber - 1, "Newer", "prev")) }
        if page.nextOffset != nil { pager.append(link(pageNumber + 1, "Older", "next")) }
        if !pager.isEmpty {
            body += "<nav class=\"regimen-pager\" aria-label=\"Ledger pages\"><p>Page \(pageNumber) \(pager.joined(separator: " "))</p></nav>"
        }
        return .html(Layout.page(title: "Ledger", section: .regimen, body: body))
    }

    static func form(products: [StoredProduct], product: String, from: String, to: String) -> String {
        let options = ["<option value=\"\"\(product.isEmpty ? " selected" : "")>All products</option>"] + products.map { p in
            let id = p.product.id.rawValue
            return "<option value=\"\(HTML.escape(id))\"\(id == product ? " selected" : "")>\(HTML.escape(p.product.name))</option>"
        }
        return """
        <form method="get" action="/regimen/ledger" class="card regimen-filter" aria-label="Filter the ledger">
        <div class="stack"><label for="ledger-product">Product</label>
        <select id="ledger-product" name="product">\(options.joined())</select></div>
        <div class="stack"><label for="ledger-from">From</label>
        <input type="date" id="ledger-from" name="from" value="\(HTML.escape(from))"></div>
        <div class="stack"><label for="ledger-to">To</label>
        <input type="date" id="ledger-to" name="to" value="\(HTML.escape(to))"></div>
        <div class="form-actions"><button type="submit" class="button button-quiet">Show</button></div>
        </form>
        """
    }

    /// A short form of a record id for the "corrected by" labels.
    static func short(_ id: IntakeRecordID) -> String { String(id.rawValue.prefix(8)) }

    static func table(_ entries: [LedgerEntry]) -> String {
        let rows = entries.map { e -> String in
            var notes: [String] = []
            switch e.kind {
            case .scheduled:
                if let o = e.occurrence { notes.append("scheduled for \(o.day) \(o.slot)") }
            case .asNeeded: notes.append("as needed")
            case .extra: notes.append("extra dose")
            }
            if let by = e.supersededBy { notes.append("replaced: corrected by record \(short(by))") }
            if let old = e.supersedes { notes.append("corrects record \(short(old))") }
            let status = e.status == .taken ? "taken" : e.status == .skipped ? "skipped" : "not taken"
            let classes = "regimen-row regimen-\(e.status.rawValue)" + (e.isCurrent ? "" : " regimen-replaced")
            return """
            <tr class="\(classes)" id="record-\(HTML.escape(short(e.id)))">
            <td>\(HTML.escape(RegimenPages.time(e.takenAt, in: e.timeZone, withDay: true)))</td>
            <td>\(HTML.escape(e.productName))</td>
            <td class="regimen-status">\(e.isCurrent ? status : "<s>\(status)</s> (replaced)")</td>
            <td>\(HTML.escape(RegimenPages.servings(e.servings)))</td>
            <td>record \(HTML.escape(short(e.id)))\(notes.isEmpty ? "" : "; " + HTML.escape(notes.joined(separator: "; ")))</td>
            </tr>
            """
        }.joined(separator: "\n")
        return """
        <div class="regimen-table-wrap">
        <table class="regimen-ledger">
        <caption class="visually-hidden">Logged doses, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Product</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Details</th></tr></thead>
        <tbody>
        \(rows)
        </tbody>
        </table>
        </div>
        """
    }
}
