import CairnApp
import CairnCore
import Foundation
import Regimen

/// The products pages: `GET /regimen/products`, `GET|POST /regimen/products/new`, `GET /regimen/products/ID`,
/// `GET|POST /regimen/products/ID/edit` (an edit saves a new version; earlier ones stay).
enum RegimenProductPages {
    /// The fields of the product form, kept when the form is shown again after a refusal.
    struct Draft: Equatable {
        var name = "", brand = "", form = "", serving = "1", ingredients = ""
        /// The ticked "I checked this row" boxes: row number (from 1) to the line as it was when ticked.
        var ticked: [Int: String] = [:]

        init() {}
        init(_ fields: [String: String]) {
            name = fields["name"] ?? ""
            brand = fields["brand"] ?? ""
            form = fields["form"] ?? ""
            serving = fields["serving"] ?? ""
            ingredients = fields["ingredients"] ?? ""
            for (key, value) in fields where key.hasPrefix("accept-") {
                if let n = Int(key.dropFirst("accept-".count)) { ticked[n] = value }
            }
        }

        /// What the person typed, for the domain's one parser (every field is given: the form shows them all).
        var input: ProductInput {
            ProductInput(
                name: name, brand: brand, form: form, serving: serving,
                ingredients: ingredients.split(whereSeparator: \.isNewline).map(String.init))
        }

        /// The ingredient lines that are rows, as the parser numbers them.
        var lines: [String] { input.rowLines ?? [] }

        /// The rows the person accepted: ticked while the line read as it does now.
        var decisions: RowDecisions {
            let lines = self.lines
            return RowDecisions(accepted: Set(ticked.filter { $0.key >= 1 && $0.key <= lines.count && lines[$0.key - 1] == $0.value }.map(\.key)))
        }

        /// The form filled with a product as it stands, for editing.
        init(_ product: Product) {
            name = product.name
            brand = product.brand
            form = product.form.rawValue
            serving = product.servingSize.servingText
            ingredients = product.ingredients.map(TypedIngredient.line).joined(separator: "\n")
        }
    }

    /// Why the form was shown again: its fields' refusals, the flagged rows, or another refusal.
    struct Refusal {
        var fields = FieldProblems<ProductField>([])
        var flagged: [FlaggedRow] = []
        var other: String?

        init(_ error: any CairnError) {
            switch error {
            case let problems as FieldProblems<ProductField>: fields = problems
            case let undecided as FlaggedRowsUndecided: flagged = undecided.rows
            default: other = error.userMessage + " Nothing was saved."
            }
        }
    }

    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        /// The newest revision of the address's product; a product that is not there answers 404.
        @Sendable func current(_ r: RouteRequest) throws -> (id: ProductID, product: Product) {
            let id = ProductID(r.parameter("product"))
            guard let current = try regimen.product(id) else { throw WebError.notFound }
            return (id, current.product)
        }
        /// What the product's page shows, read now.
        @Sendable func detail(_ id: ProductID, archiveError: String? = nil) throws -> Detail {
            let history = try regimen.productHistory(id)
            guard !history.isEmpty else { throw WebError.notFound }
            let schedules = try regimen.schedules().filter { $0.latest.plan.productID == id }
            return Detail(
                history: history, supply: try regimen.supply(id), scheduled: !schedules.isEmpty,
                openSchedule: schedules.contains { $0.latest.state != .stopped }, archivedAt: try regimen.archivedAt(id),
                justAdded: false, archiveError: archiveError)
        }
        return [
            route(.get, "/regimen/products") { _ in
                let supplies = Dictionary(try regimen.supplies().map { ($0.productID, $0) }, uniquingKeysWith: { a, _ in a })
                return .html(list(try regimen.products(), supplies: supplies, archived: try regimen.archivedProducts()))
            },
            route(.get, "/regimen/products/new") { _ in .html(productForm(Draft(), editing: nil, csrfToken: csrfToken)) },
            route(.post, "/regimen/products/new") { r in
                let draft = Draft(r.form)
                do {
                    let saved = try regimen.addProduct(draft.input, decisions: draft.decisions)
                    return .redirect(to: "/regimen/products/\(saved.product.id.rawValue)?added=1")
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(productForm(draft, editing: nil, csrfToken: csrfToken, refusal: Refusal(error)), status: 400)
                }
            },
            route(.get, "/regimen/products/{product}") { r in
                let id = ProductID(r.parameter("product"))
                let notices = [
                    "added": "Saved.", "unchanged": "Nothing changed, so no new version was saved.", "supply": "Count on hand saved.",
                    "archived": "Archived. It is off your lists; its versions and logged doses stay.", "restored": "Restored to your lists.",
                ]
                let notice = notices.first { r.query[$0.key] == "1" }?.value
                var detail = try detail(id)
                detail.justAdded = r.query["added"] == "1"
                return .html(page(detail, notice: notice, csrfToken: csrfToken))
            },
            route(.post, "/regimen/products/{product}/archive") { r in
                let id = try current(r).id
                do {
                    try regimen.archiveProduct(id)
                    return .redirect(to: "/regimen/products/\(id.rawValue)?archived=1")
                } catch let error as ScheduleError where error == .productStillScheduled {
                    let detail = try detail(id, archiveError: error.userMessage + " Nothing was changed.")
                    return .html(page(detail, notice: nil, csrfToken: csrfToken), status: 400)
                }
            },
            route(.post, "/regimen/products/{product}/restore") { r in
                let id = try current(r).id
                try regimen.restoreProduct(id)
                return .redirect(to: "/regimen/products/\(id.rawValue)?restored=1")
            },
            route(.post, "/regimen/products/{product}/supply") { r in
                let id = try current(r).id
                let typed = (r.form["count"] ?? "").trimmingCharacters(in: .whitespaces)
                do {
                    try regimen.setSupply(id, count: try PlainDecimal.parse(typed).value)
                    return .redirect(to: "/regimen/products/\(id.rawValue)?supply=1#supply")
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    var detail = try detail(id)
                    detail.typedCount = typed
                    detail.countError = error.userMessage + " Nothing was saved."
                    return .html(page(detail, notice: nil, csrfToken: csrfToken), status: 400)
                }
            },
            route(.get, "/regimen/products/{product}/edit") { r in
                let current = try current(r)
                return .html(productForm(Draft(current.product), editing: current.product, csrfToken: csrfToken))
            },
            route(.post, "/regimen/products/{product}/edit") { r in
                let current = try current(r)
                let draft = Draft(r.form)
                do {
                    switch try regimen.editProduct(current.id, draft.input, decisions: draft.decisions) {
                    case .saved: return .redirect(to: "/regimen/products/\(current.id.rawValue)?added=1")
                    case .unchanged: return .redirect(to: "/regimen/products/\(current.id.rawValue)?unchanged=1")
                    }
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(productForm(draft, editing: current.product, csrfToken: csrfToken, refusal: Refusal(error)), status: 400)
                }
            },
        ]
    }

    static func serving(_ p: Product) -> String {
        p.countsUnits ? "\(p.servingSize.value) \(p.countNoun(p.servingSize.value))" : p.servingSize.description
    }

    static func list(_ products: [StoredProduct], supplies: [ProductID: SupplyStatus] = [:], archived: [StoredProduct] = []) -> String {
        var body =
            RegimenPages.intro("Products", lead: "What you take, as written on the label. Editing a product keeps its earlier versions.")
            + RegimenPages.subnav("/regimen/products")
        body +=
            "<p class=\"regimen-toolbar\"><a class=\"button\" href=\"/regimen/products/new\" id=\"regimen-add-product\">Add a product</a> <a class=\"button button-quiet\" href=\"/regimen/products/scan\" id=\"regimen-scan-label\">Add from a label photo</a> <a class=\"button button-quiet\" href=\"/regimen/products/labels\" id=\"regimen-label-database\">Add from the label database</a></p>"
        if products.isEmpty {
            body += "<p class=\"notice\" id=\"regimen-products-empty\">No products yet. Add one from its label to start.</p>"
        } else {
            let items = products.map { p -> HTML in
                let meta = [p.product.brand, p.product.form.rawValue, "serving: " + serving(p.product)].filter { !$0.isEmpty }.joined(
                    separator: " · ")
                let rows = p.product.ingredients.count == 1 ? "row" : "rows"
                return """
                    <li class="card regimen-product-card">
                    <h2><a href="/regimen/products/\(p.product.id.rawValue)">\(p.product.name)</a></h2>
                    <p class="regimen-meta">\(meta)</p>
                    <p class="regimen-meta">\(p.product.ingredients.count) label \(rows), version \(p.revisionNumber)</p>
                    \(supplies[p.product.id].map { s -> HTML in "<p class=\"regimen-meta\">\(s.summary)</p>" })
                    </li>
                    """
            }
            body += "<ul class=\"regimen-products\" aria-label=\"Products\">\n\(HTML.join(items, separator: "\n"))\n</ul>"
        }
        if !archived.isEmpty {
            let items = archived.map { p -> HTML in "<li><a href=\"/regimen/products/\(p.product.id.rawValue)\">\(p.product.name)</a></li>" }
            body += """
                <details class="card regimen-archived" id="regimen-archived"><summary>Archived (\(archived.count))</summary>
                <ul class="regimen-list">\(items)</ul></details>
                """
        }
        return Layout.page(title: "Products", section: .regimen, body: body)
    }

    /// The add form, or with `editing` the edit form of that product (saving adds a version). A refusal shows
    /// each message beside its field (the flagged rows beside the ingredients), all at once.
    static func productForm(_ draft: Draft, editing: Product?, csrfToken: String, refusal: Refusal? = nil) -> String {
        let lines = draft.lines
        let flagged = refusal?.flagged ?? []
        let flaggedRows = flagged.map { row -> HTML in
            let line = row.number <= lines.count ? lines[row.number - 1] : ""
            let flags = row.flags.map { flag -> HTML in "<li class=\"scan-flag\"><strong>\(flag.title):</strong> \(flag.reason)</li>" }
            let autofocus: HTML = row.number == flagged[0].number ? " autofocus" : ""
            return """
                <li id="product-flagged-\(row.number)"><p><strong>Row \(row.number):</strong> \(line)</p><ul class="scan-flags">\(flags)</ul>
                <p class="scan-accept"><input type="checkbox" id="accept-\(row.number)" name="accept-\(row.number)" value="\(line)"\(autofocus)> <label for="accept-\(row.number)">I checked this row against the label: save it as written</label></p></li>
                """
        }
        let flaggedCount = flagged.count == 1 ? "One row is flagged" : "\(flagged.count) rows are flagged"
        let flaggedHTML: HTML =
            flagged.isEmpty
            ? ""
            : """
            <fieldset class="stack field-group regimen-flagged" id="product-flagged"><legend>Rows to check before saving</legend>
            <p class="field-error" id="product-flagged-error">\(flaggedCount): check each against the label, then tick it to save it as written, or change it below.</p>
            <ul class="regimen-list">\(flaggedRows)</ul>
            <p class="help">A changed row is checked again.</p></fieldset>
            """
        let problems = refusal?.fields ?? FieldProblems([])
        let ids: [ProductField: (id: String, label: String)] = [
            .name: ("product-name", "Name"), .brand: ("product-brand", "Brand"), .form: ("product-form", "Form"),
            .serving: ("product-serving", "One serving"), .ingredients: ("product-ingredients", "Ingredients"),
        ]
        let refused = ProductField.allCases.filter { !problems.messages(for: $0).isEmpty }
        var summary = refused.compactMap { ids[$0] }
        if !flagged.isEmpty { summary.append(("accept-\(flagged[0].number)", "Rows to check")) }
        func attributes(_ field: ProductField, help: Bool = false) -> HTML {
            FormField.attributes(ids[field]!.id, errors: problems.messages(for: field), help: help, first: refused.first == field)
        }
        func errors(_ field: ProductField) -> HTML { FormField.errors(problems.messages(for: field), ids[field]!.id) }
        let title = editing.map { "Edit " + $0.name } ?? "Add a product"
        let action = editing.map { "/regimen/products/\($0.id.rawValue)/edit" } ?? "/regimen/products/new"
        let lead =
            editing == nil
            ? "Copy the label: the name, the form, what one serving is, and one line per ingredient."
            : "Saving keeps the earlier version: doses already logged still refer to the label as it was then."
        let cancel = editing.map { "/regimen/products/\($0.id.rawValue)" } ?? "/regimen/products"
        func selected(_ on: Bool) -> HTML { on ? " selected" : "" }
        let options: [HTML] =
            ["<option value=\"\"\(selected(draft.form.isEmpty))>Choose…</option>"]
            + ProductForm.allCases.map { f -> HTML in
                "<option value=\"\(f.rawValue)\"\(selected(f.rawValue == draft.form))>\(f.rawValue)</option>"
            }
        let scanLink: HTML? =
            editing == nil
            ? "<p class=\"regimen-toolbar\"><a href=\"/regimen/products/scan\" id=\"regimen-scan-label\">Or read the rows from a photo of the label</a></p>"
            : nil
        let head = RegimenPages.intro(title, lead: lead) + RegimenPages.subnav("/regimen/products")
        let message = RegimenPages.message(notice: nil, error: refusal?.other)
        let form: HTML = """
            \(scanLink)
            <form method="post" action="\(action)" class="card regimen-form" novalidate>\(Layout.csrfField(csrfToken))
            \(FormField.summary(summary))\(message)
            <div class="stack"><label for="product-name">Name</label>
            <input type="text" id="product-name" name="name" required maxlength="\(TextInput.maximumNameLength)" value="\(draft.name)"\(attributes(.name))>\(errors(.name))</div>
            <div class="stack"><label for="product-brand">Brand <span class="help">(optional)</span></label>
            <input type="text" id="product-brand" name="brand" maxlength="\(TextInput.maximumNameLength)" value="\(draft.brand)"\(attributes(.brand))>\(errors(.brand))</div>
            <div class="stack"><label for="product-form">Form</label>
            <select id="product-form" name="form" required\(attributes(.form))>\(options)</select>\(errors(.form))</div>
            <div class="stack"><label for="product-serving">One serving</label>
            <input type="text" id="product-serving" name="serving" required value="\(draft.serving)"\(attributes(.serving, help: true))>\(errors(.serving))
            <p class="help" id="product-serving-help">A number of units (2 for two capsules), or an amount such as 5 g or 10 mL.</p></div>
            <div class="stack"><label for="product-ingredients">Ingredients, one a line</label>
            <textarea id="product-ingredients" name="ingredients" rows="6"\(attributes(.ingredients, help: true))>\(draft.ingredients)</textarea>\(errors(.ingredients))
            <p class="help" id="product-ingredients-help">Write each as on the label: the name, its form in "(as …)", the amount and the %DV, for example: Magnesium (as magnesium glycinate) = 200 mg, 48% DV. Rows are checked as scanned ones are; a flagged row is shown for you to check before anything is saved.</p></div>
            \(flaggedHTML)
            <div class="form-actions"><button type="submit" class="button" id="product-save">Save product</button>
            <a class="button button-quiet" href="\(cancel)">Cancel</a></div>
            </form>
            """
        return Layout.page(title: title, section: .regimen, body: head + form)
    }

    /// What a product's page shows: its versions, its count on hand (with a refused count typed), whether a
    /// schedule takes it, and whether it was just added (then the next steps lead).
    struct Detail {
        var history: [StoredProduct]
        var supply: SupplyStatus?
        var scheduled: Bool
        /// A schedule of it is active or paused (archiving waits until it is stopped).
        var openSchedule = false
        var archivedAt: Date?
        var justAdded: Bool
        var typedCount: String?
        var countError: String?
        var archiveError: String?
    }

    /// Archive (history kept) or, for an archived product, restore.
    static func archiveSection(_ d: Detail, _ p: Product, csrfToken: String) -> HTML {
        let id = p.id.rawValue
        if let at = d.archivedAt {
            return """
                <section class="card regimen-form" aria-labelledby="archive-title" id="archive">
                <h2 id="archive-title">Archived</h2>
                <p>Archived \(DateText.string(at, .day, in: .current)): it is off your lists; its versions and logged doses stay.</p>
                <form method="post" action="/regimen/products/\(id)/restore">\(Layout.csrfField(csrfToken))
                <button type="submit" class="button button-quiet" id="product-restore">Restore to your lists</button></form>
                </section>
                """
        }
        let errors = d.archiveError.map { [$0] } ?? []
        let hint: HTML =
            d.openSchedule
            ? "<p class=\"help\" id=\"product-archive-help\">A schedule of it is active or paused: <a href=\"/regimen/schedules\">stop it</a> first.</p>"
            : "<p class=\"help\" id=\"product-archive-help\">It leaves Products, the schedule form and the refill warning; its versions and logged doses stay, and you can restore it.</p>"
        return """
            <section class="card regimen-form" aria-labelledby="archive-title" id="archive">
            <h2 id="archive-title">No longer taking it?</h2>
            <form method="post" action="/regimen/products/\(id)/archive">\(Layout.csrfField(csrfToken))
            \(hint)
            <button type="submit" class="button button-quiet" id="product-archive"\(FormField.attributes("product-archive", errors: errors, help: true, first: true))>Archive this product</button>
            \(FormField.errors(errors, "product-archive"))
            </form>
            </section>
            """
    }

    /// The next steps after a product is saved: a schedule, and the count on hand (each only while missing).
    static func nextSteps(_ d: Detail, _ id: ProductID) -> HTML {
        var steps: [HTML] = []
        if !d.scheduled {
            steps.append("<li><a href=\"/regimen/schedules#plan-form-title\" id=\"next-schedule\">Add a schedule</a> for when you take it</li>")
        }
        if d.supply == nil {
            steps.append("<li><a href=\"#supply-count\" id=\"next-supply\">Set the count on hand</a>, to see when it runs out</li>")
        }
        guard !steps.isEmpty else { return "" }
        return
            "<section class=\"card\" aria-labelledby=\"next-title\" id=\"next-steps\"><h2 id=\"next-title\">Next</h2><ul class=\"regimen-list\">\(steps)</ul></section>"
    }

    /// The count on hand and its form (`COUNT` in units when a serving is a count, else in servings).
    static func supplySection(_ d: Detail, _ p: Product, csrfToken: String) -> HTML {
        let errors = d.countError.map { [$0] } ?? []
        let current: HTML =
            d.supply.map { s -> HTML in "<p id=\"supply-summary\">\(s.summary)</p>" }
            ?? "<p id=\"supply-summary\">No count set yet. Set one and each dose logged as taken counts it down.</p>"
        let what = p.countNoun(2)
        return """
            <section class="card regimen-form" aria-labelledby="supply-title" id="supply">
            <h2 id="supply-title">On hand</h2>
            \(current)
            <form method="post" action="/regimen/products/\(p.id.rawValue)/supply" class="regimen-inline-form" novalidate>\(Layout.csrfField(csrfToken))
            <label for="supply-count">Count now, in \(what)</label>
            <input type="text" inputmode="decimal" id="supply-count" name="count" value="\(d.typedCount ?? "")"\(FormField.attributes("supply-count", errors: errors, help: true, first: true))>
            <button type="submit" class="button button-quiet" id="supply-save">Save count</button>
            \(FormField.errors(errors, "supply-count"))
            <p class="help" id="supply-count-help">Count what is in the bottle now. A refill is a new count.</p>
            </form>
            </section>
            """
    }

    static func page(_ d: Detail, notice: String?, csrfToken: String) -> String {
        let history = d.history
        let current = history.max { $0.revisionNumber < $1.revisionNumber }!
        let p = current.product
        var body =
            RegimenPages.intro(
                p.name, lead: [p.brand, p.form.rawValue, "serving: " + serving(p)].filter { !$0.isEmpty }.joined(separator: " · "))
            + RegimenPages.subnav("/regimen/products")
            + RegimenPages.message(notice: notice, error: nil)
            + (d.justAdded ? nextSteps(d, p.id) : "")
            + "<p class=\"regimen-toolbar\"><a class=\"button button-quiet\" href=\"/regimen/products/\(p.id.rawValue)/edit\" id=\"regimen-edit-product\">Edit this product</a></p>"
            + (d.archivedAt == nil ? supplySection(d, p, csrfToken: csrfToken) : "")
        let versions = history.sorted { $0.revisionNumber > $1.revisionNumber }.map { rev -> HTML in
            let rows = rev.product.ingredients.map { row -> HTML in
                let known: HTML =
                    row.catalogueID == nil
                    ? " <span class=\"regimen-flag\"><strong>\(LabelFlag.Kind.unknownIngredient.title):</strong> not in Cairn's ingredient catalogue. Check the spelling, or keep it as written.</span>"
                    : ""
                let form = row.form.map { " (as \($0))" } ?? ""
                let percent = row.dailyValuePercent.map { " · \($0)% DV" } ?? ""
                let amount = row.amount.map { " — \($0.description)" } ?? ""
                return "<li>\(row.nameOnLabel)\(form)\(amount)\(percent)\(known)</li>"
            }
            let currentMark: HTML = rev.revisionNumber == current.revisionNumber ? " (current)" : ""
            let rowList: HTML = rows.isEmpty ? "<p>No label rows.</p>" : "<ul class=\"regimen-list\">\(rows)</ul>"
            return """
                <li class="card regimen-revision" id="revision-\(rev.revisionNumber)">
                <h3>Version \(rev.revisionNumber)\(currentMark)</h3>
                <p class="regimen-meta">Saved \(DateText.string(rev.recordedAt, .numericMinute, in: .current)) · \(rev.product.name) · serving: \(serving(rev.product))</p>
                \(rowList)
                </li>
                """
        }
        body += """
            <section aria-labelledby="versions-title">
            <h2 id="versions-title">Versions, newest first</h2>
            <ol class="regimen-revisions">
            \(HTML.join(versions, separator: "\n"))
            </ol>
            </section>
            <p><a href="/regimen/ledger?product=\(p.id.rawValue)">Logged doses of this product</a></p>
            \(archiveSection(d, p, csrfToken: csrfToken))
            """
        return Layout.page(title: p.name, section: .regimen, body: body)
    }
}
