import CairnApp
import CairnCore
import Foundation
import Regimen

/// The products pages: `GET /regimen/products`, `GET|POST /regimen/products/new`, `GET /regimen/products/ID`,
/// `GET|POST /regimen/products/ID/edit` (an edit saves a new version; earlier ones stay).
enum RegimenProductPages {
    /// The fields of the new-product form, kept when the form is shown again after a refusal.
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

        /// The non-empty ingredient lines, as typed.
        var lines: [String] {
            ingredients.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

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
            serving = RegimenProductPages.servingText(product.servingSize)
            ingredients = product.ingredients.map(TypedIngredient.line).joined(separator: "\n")
        }
    }

    static func routes(_ regimen: RegimenService, csrfToken: String) -> [Route] {
        /// The newest revision of the address's product; a product that is not there answers 404.
        @Sendable func current(_ r: RouteRequest) throws -> (id: ProductID, product: Product) {
            let id = ProductID(r.parameter("product"))
            guard let current = try regimen.productHistory(id).max(by: { $0.revisionNumber < $1.revisionNumber }) else {
                throw WebError.notFound
            }
            return (id, current.product)
        }
        return [
            route(.get, "/regimen/products") { _ in .html(list(try regimen.products())) },
            route(.get, "/regimen/products/new") { _ in .html(productForm(Draft(), editing: nil, csrfToken: csrfToken)) },
            route(.post, "/regimen/products/new") { r in
                let draft = Draft(r.form)
                do {
                    let saved = try regimen.addProduct(try product(from: draft), decisions: draft.decisions)
                    return .redirect(to: "/regimen/products/\(saved.product.id.rawValue)?added=1")
                } catch let refusal as FlaggedRowsUndecided {
                    return .html(productForm(draft, editing: nil, csrfToken: csrfToken, error: refusal.userMessage,
                                             flagged: refusal.rows), status: 400)
                } catch let error as CairnError {
                    return .html(productForm(draft, editing: nil, csrfToken: csrfToken, error: error.userMessage + " Nothing was saved."), status: 400)
                }
            },
            route(.get, "/regimen/products/{product}") { r in
                let history = try regimen.productHistory(ProductID(r.parameter("product")))
                guard !history.isEmpty else { throw WebError.notFound }
                return .html(detail(history, added: r.query["added"] == "1"))
            },
            route(.get, "/regimen/products/{product}/edit") { r in
                let current = try current(r)
                return .html(productForm(Draft(current.product), editing: current.product, csrfToken: csrfToken))
            },
            route(.post, "/regimen/products/{product}/edit") { r in
                let current = try current(r)
                let draft = Draft(r.form)
                do {
                    _ = try regimen.editProduct(current.id, to: try product(from: draft, keeping: current.product),
                                                decisions: draft.decisions)
                    return .redirect(to: "/regimen/products/\(current.id.rawValue)?added=1")
                } catch let refusal as FlaggedRowsUndecided {
                    return .html(productForm(draft, editing: current.product, csrfToken: csrfToken, error: refusal.userMessage,
                                             flagged: refusal.rows), status: 400)
                } catch let error as CairnError {
                    return .html(productForm(draft, editing: current.product, csrfToken: csrfToken,
                                             error: error.userMessage + " Nothing was saved."), status: 400)
                }
            },
        ]
    }

    /// A refusal of the form's own fields (the service's refusals come as its own errors).
    struct FormProblem: CairnError {
        let userMessage: String
    }

    /// Builds the product from the form: a plain number of servings is a count of units, else an amount
    /// like "5 g"; each non-empty ingredient line is a `TypedIngredient` ("Magnesium (as magnesium glycinate) =
    /// 200 mg, 48% DV"; the amount may be left out). When editing, a line naming a row of `earlier` the catalogue
    /// cannot match keeps that row's catalogue entry (a label read from a photo may carry a fuzzy match).
    static func product(from draft: Draft, keeping earlier: Product? = nil) throws -> Product {
        guard let form = ProductForm(rawValue: draft.form) else { throw FormProblem(userMessage: "Choose the product's form.") }
        let serving = try servingSize(draft.serving)
        let catalogue = try? Catalogue.bundled()
        let rows = try draft.lines.map { line -> ProductIngredient in
            let typed = try TypedIngredient.parse(line, catalogue: catalogue)
            if typed.catalogueID == nil, let before = earlier?.ingredients.first(where: { $0.nameOnLabel == typed.nameOnLabel }) {
                return try ProductIngredient(catalogueID: before.catalogueID, nameOnLabel: typed.nameOnLabel, amount: typed.amount,
                                             dailyValuePercent: typed.dailyValuePercent, form: typed.form)
            }
            return typed
        }
        return try Product(name: draft.name.trimmingCharacters(in: .whitespaces),
                           brand: draft.brand.trimmingCharacters(in: .whitespaces), form: form,
                           servingSize: serving, ingredients: rows)
    }

    /// One serving as typed: a plain number is a count of units ("2"), anything else an amount ("5 g").
    static func servingSize(_ text: String) throws -> Amount {
        let servingText = text.trimmingCharacters(in: .whitespaces)
        if let count = Decimal(string: servingText, locale: Locale(identifier: "en_US_POSIX")),
           !servingText.isEmpty, servingText.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            return try Amount(count, .count)
        }
        return try LabelUnitParser.amount(servingText)
    }

    /// One serving as the form shows it: a count as a plain number, else the amount ("5 g").
    static func servingText(_ amount: Amount) -> String {
        amount.unit == .count ? "\(amount.value)" : amount.description
    }

    static func serving(_ p: Product) -> String {
        p.servingSize.unit == .count ? "\(p.servingSize.value) \(p.form.rawValue)" : p.servingSize.description
    }

    static func list(_ products: [StoredProduct]) -> String {
        var body = RegimenPages.intro("Products", lead: "What you take, as written on the label. Editing a product keeps its earlier versions.")
            + RegimenPages.subnav("/regimen/products")
        body += "<p class=\"regimen-toolbar\"><a class=\"button\" href=\"/regimen/products/new\" id=\"regimen-add-product\">Add a product</a> <a class=\"button button-quiet\" href=\"/regimen/products/scan\" id=\"regimen-scan-label\">Add from a label photo</a></p>"
        if products.isEmpty {
            body += "<p class=\"notice\" id=\"regimen-products-empty\">No products yet. Add one from its label to start.</p>"
        } else {
            let items = products.map { p in
                """
                <li class="card regimen-product-card">
                <h2><a href="/regimen/products/\(HTML.escape(p.product.id.rawValue))">\(HTML.escape(p.product.name))</a></h2>
                <p class="regimen-meta">\(HTML.escape([p.product.brand, p.product.form.rawValue, "serving: " + serving(p.product)].filter { !$0.isEmpty }.joined(separator: " · ")))</p>
                <p class="regimen-meta">\(p.product.ingredients.count) label \(p.product.ingredients.count == 1 ? "row" : "rows"), version \(p.revisionNumber)</p>
                </li>
                """
            }.joined(separator: "\n")
            body += "<ul class=\"regimen-products\" aria-label=\"Products\">\n\(items)\n</ul>"
        }
        return Layout.page(title: "Products", section: .regimen, body: body)
    }

    /// The add form, or with `editing` the edit form of that product (saving adds a version).
    static func productForm(_ draft: Draft, editing: Product?, csrfToken: String, error: String? = nil,
                            flagged: [FlaggedRow] = []) -> String {
        let lines = draft.lines
        let flaggedHTML = flagged.isEmpty ? "" : """
        <fieldset class="stack regimen-flagged" id="product-flagged"><legend>Rows to check before saving</legend>
        <ul class="regimen-list">\(flagged.map { row in
            let line = row.number <= lines.count ? lines[row.number - 1] : ""
            let flags = row.flags.map { "<li class=\"scan-flag\"><strong>\(HTML.escape($0.title)):</strong> \(HTML.escape($0.reason))</li>" }.joined()
            return """
            <li id="product-flagged-\(row.number)"><p><strong>Row \(row.number):</strong> \(HTML.escape(line))</p><ul class="scan-flags">\(flags)</ul>
            <p class="scan-accept"><input type="checkbox" id="accept-\(row.number)" name="accept-\(row.number)" value="\(HTML.escape(line))"> <label for="accept-\(row.number)">I checked this row against the label: save it as written</label></p></li>
            """
        }.joined())</ul>
        <p class="help">Or change the row in the list below; a changed row is checked again.</p></fieldset>
        """
        let title = editing.map { "Edit " + $0.name } ?? "Add a product"
        let action = editing.map { "/regimen/products/\(HTML.escape($0.id.rawValue))/edit" } ?? "/regimen/products/new"
        let lead = editing == nil
            ? "Copy the label: the name, the form, what one serving is, and one line per ingredient."
            : "Saving keeps the earlier version: doses already logged still refer to the label as it was then."
        let cancel = editing.map { "/regimen/products/\(HTML.escape($0.id.rawValue))" } ?? "/regimen/products"
        let options = ["<option value=\"\"\(draft.form.isEmpty ? " selected" : "")>Choose…</option>"] + ProductForm.allCases.map { f in
            "<option value=\"\(f.rawValue)\"\(f.rawValue == draft.form ? " selected" : "")>\(f.rawValue)</option>"
        }
        let body = RegimenPages.intro(title, lead: lead)
            + RegimenPages.subnav("/regimen/products") + """
        \(editing == nil ? "<p class=\"regimen-toolbar\"><a href=\"/regimen/products/scan\" id=\"regimen-scan-label\">Or read the rows from a photo of the label</a></p>" : "")
        <form method="post" action="\(action)" class="card regimen-form">\(Layout.csrfField(csrfToken))
        \(RegimenPages.message(notice: nil, error: error))
        \(flaggedHTML)
        <div class="stack"><label for="product-name">Name</label>
        <input type="text" id="product-name" name="name" required maxlength="200" value="\(HTML.escape(draft.name))"></div>
        <div class="stack"><label for="product-brand">Brand <span class="help">(optional)</span></label>
        <input type="text" id="product-brand" name="brand" maxlength="200" value="\(HTML.escape(draft.brand))"></div>
        <div class="stack"><label for="product-form">Form</label>
        <select id="product-form" name="form" required>\(options.joined())</select></div>
        <div class="stack"><label for="product-serving">One serving</label>
        <input type="text" id="product-serving" name="serving" required value="\(HTML.escape(draft.serving))" aria-describedby="serving-help">
        <p class="help" id="serving-help">A number of units (2 for two capsules), or an amount such as 5 g or 10 mL.</p></div>
        <div class="stack"><label for="product-ingredients">Ingredients, one a line</label>
        <textarea id="product-ingredients" name="ingredients" rows="6" aria-describedby="ingredients-help">\(HTML.escape(draft.ingredients))</textarea>
        <p class="help" id="ingredients-help">Write each as on the label: the name, its form in "(as …)", the amount and the %DV, for example: Magnesium (as magnesium glycinate) = 200 mg, 48% DV. Rows are checked as scanned ones are; a flagged row is shown for you to check before anything is saved.</p></div>
        <div class="form-actions"><button type="submit" class="button" id="product-save">Save product</button>
        <a class="button button-quiet" href="\(cancel)">Cancel</a></div>
        </form>
        """
        return Layout.page(title: title, section: .regimen, body: body)
    }

    static func detail(_ history: [StoredProduct], added: Bool) -> String {
        let current = history.max { $0.revisionNumber < $1.revisionNumber }!
        let p = current.product
        var body = RegimenPages.intro(p.name, lead: [p.brand, p.form.rawValue, "serving: " + serving(p)].filter { !$0.isEmpty }.joined(separator: " · "))
            + RegimenPages.subnav("/regimen/products")
            + RegimenPages.message(notice: added ? "Saved." : nil, error: nil)
            + "<p class=\"regimen-toolbar\"><a class=\"button button-quiet\" href=\"/regimen/products/\(HTML.escape(p.id.rawValue))/edit\" id=\"regimen-edit-product\">Edit this product</a></p>"
        let versions = history.sorted { $0.revisionNumber > $1.revisionNumber }.map { rev in
            let rows = rev.product.ingredients.map { row in
                let known = row.catalogueID == nil
                    ? " <span class=\"regimen-flag\"><strong>\(HTML.escape(LabelFlag.Kind.unknownIngredient.title)):</strong> not in Cairn's ingredient catalogue. Check the spelling, or keep it as written.</span>" : ""
                let form = row.form.map { " (as " + HTML.escape($0) + ")" } ?? ""
                let percent = row.dailyValuePercent.map { " · \($0)% DV" } ?? ""
                return "<li>\(HTML.escape(row.nameOnLabel))\(form)\(row.amount.map { " — " + HTML.escape($0.description) } ?? "")\(percent)\(known)</li>"
            }.joined()
            return """
            <li class="card regimen-revision" id="revision-\(rev.revisionNumber)">
            <h3>Version \(rev.revisionNumber)\(rev.revisionNumber == current.revisionNumber ? " (current)" : "")</h3>
            <p class="regimen-meta">Saved \(HTML.escape(RegimenPages.time(rev.recordedAt, in: .current, withDay: true))) · \(HTML.escape(rev.product.name)) · serving: \(HTML.escape(serving(rev.product)))</p>
            \(rows.isEmpty ? "<p>No label rows.</p>" : "<ul class=\"regimen-list\">\(rows)</ul>")
            </li>
            """
        }.joined(separator: "\n")
        body += """
        <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions, newest first</h2>
        <ol class="regimen-revisions">
        \(versions)
        </ol>
        </section>
        <p><a href="/regimen/ledger?product=\(HTML.escape(p.id.rawValue))">Logged doses of this product</a></p>
        """
        return Layout.page(title: p.name, section: .regimen, body: body)
    }
}
