import CairnApp
import CairnCore
import Foundation
import Regimen

/// The label database on the web: Settings' section and page (`GET /settings/label-database`, import from a path
/// on this computer, remove) and adding a product from it (`GET /regimen/products/labels`: search by name or brand,
/// a barcode photo, a label's review through the same page and gate as a scan, teaching an unknown barcode).
/// Every action works without JavaScript.
enum LabelDatabasePages {
    /// Where the data comes from, its licence, and that Cairn fetches nothing.
    static let source: HTML = """
        The label database is the NIH Office of Dietary Supplements' <a href="https://dsld.od.nih.gov/">Dietary Supplement Label Database</a> (DSLD), public domain. You download its bulk JSON file yourself; Cairn never fetches anything. It is kept beside your vault, outside it and its backups; barcodes you teach stay in your vault.
        """

    static func routes(_ labels: LabelDatabaseService, regimen: RegimenService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/products/labels") { r in
                let query = (r.query["q"] ?? "").trimmingCharacters(in: .whitespaces)
                return .html(try searchPage(labels, query: query, csrfToken: csrfToken))
            },
            route(.post, "/regimen/products/labels/barcode") { r in
                guard let photo = r.request.formValue("photo"), !photo.isEmpty else {
                    return .html(
                        try searchPage(labels, query: "", csrfToken: csrfToken, photoError: "Choose a photo of the barcode first."), status: 400)
                }
                do {
                    let lookup = try labels.lookUp(photo: photo)
                    return .html(try barcodePage(lookup, products: try regimen.products(), csrfToken: csrfToken))
                } catch let error as CairnError where error.errorKind == .refusedInput || error.errorKind == .unavailable {
                    return .html(
                        try searchPage(labels, query: "", csrfToken: csrfToken, photoError: error.userMessage + " Nothing was saved."), status: 400)
                }
            },
            route(.post, "/regimen/products/labels/teach") { r in
                guard let barcode = try r.form.value("barcode", as: GTIN.self) else { throw WebError.badForm }
                guard let product = r.form["product"], !product.isEmpty else {
                    let lookup = try labels.lookUp(barcode)
                    return .html(
                        try barcodePage(lookup, products: try regimen.products(), csrfToken: csrfToken, productError: "Choose one of your products."),
                        status: 400)
                }
                let stored = try labels.teach(barcode, to: try regimen.findProduct(product).product.id)
                return .redirect(to: "/regimen/products/\(stored.product.id.rawValue)?taught=1")
            },
            route(.get, "/regimen/products/labels/{label}") { r in
                guard let id = Int(r.parameter("label")), id > 0 else { throw WebError.notFound }
                let label = try labels.label(id)
                let review = LabelScanPages.Review(label: label, proposal: try labels.proposal(for: label))
                return .html(LabelScanPages.page(review, csrfToken: csrfToken))
            },
            route(.get, "/settings/label-database") { r in
                .html(try settingsPage(labels, csrfToken: csrfToken, notice: r.query["done"].flatMap(Self.notice)))
            },
            route(.post, "/settings/label-database/import") { r in
                let path = (r.form["path"] ?? "").trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty, path.hasPrefix("/") else {
                    return .html(
                        try settingsPage(labels, csrfToken: csrfToken, path: path, pathError: "Write the full path of the file, starting with /."),
                        status: 400)
                }
                do {
                    _ = try labels.importFile(atPath: path)
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(
                        try settingsPage(labels, csrfToken: csrfToken, path: path, pathError: error.userMessage + " Nothing was changed."),
                        status: 400)
                }
                return .redirect(to: "/settings/label-database?done=imported")
            },
            route(.post, "/settings/label-database/remove") { _ in
                try labels.remove()
                return .redirect(to: "/settings/label-database?done=removed")
            },
        ]
    }

    static func notice(_ done: String) -> String? {
        switch done {
        case "imported": return "The label database was imported."
        case "removed": return "The label database was removed."
        default: return nil
        }
    }

    /// "12.3 MB".
    static func size(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    /// Settings' section: the label database's date and size, and the way to its page.
    static func settingsSection(_ labels: LabelDatabaseService) -> HTML {
        let state: HTML
        switch Result(catching: { try labels.status() }) {
        case .success(let status?):
            state =
                "<p class=\"setting-state\" id=\"label-database-state\">\(status.labels) labels, imported \(DateText.string(status.importedAt, .day, in: labels.clock.timeZone)), \(size(status.fileBytes)) on this computer.</p>"
        case .success(nil): state = "<p class=\"setting-state\" id=\"label-database-state\">Not imported.</p>"
        case .failure(let error):
            state =
                "<p class=\"form-error\" id=\"label-database-state\">\((error as? CairnError)?.userMessage ?? "The label database cannot be read.")</p>"
        }
        return """
            <section class="card setting" aria-labelledby="label-database-title">
            <h2 id="label-database-title">Label database</h2>
            <p>Find a supplement's label by name, brand or barcode, on this computer.</p>
            \(state)
            <p class="card-action"><a class="button button-quiet" href="/settings/label-database" id="settings-label-database">Label database…</a></p>
            </section>
            """
    }

    static func settingsPage(
        _ labels: LabelDatabaseService, csrfToken: String, notice: String? = nil, path: String = "", pathError: String? = nil
    ) throws -> String {
        let status = try? labels.status()
        let state: HTML
        if let status {
            state = """
                <dl class="facts" id="label-database-facts">
                <dt>Labels</dt><dd>\(status.labels)</dd>
                <dt>Imported</dt><dd>\(DateText.string(status.importedAt, .dayAndTime, in: labels.clock.timeZone)), from \(status.sourceName)</dd>
                <dt>Size on this computer</dt><dd>\(size(status.fileBytes))</dd>
                </dl>
                """
        } else {
            state = "<p id=\"label-database-facts\">There is no label database on this computer yet.</p>"
        }
        let errors = pathError.map { [$0] } ?? []
        // Removing comes last on the page: the forms above it stay as they were after it.
        let remove: HTML =
            status == nil
            ? ""
            : """
            <section class="card" aria-labelledby="label-database-remove-title">
            <h2 id="label-database-remove-title">Remove it</h2>
            <p>Barcodes you linked to your products stay in your vault.</p>
            <form method="post" action="/settings/label-database/remove" class="setting-row">\(Layout.csrfField(csrfToken))
            <button type="submit" class="button button-quiet" id="label-database-remove">Remove the label database</button>
            </form>
            </section>
            """
        let body: HTML = """
            <div class="page-intro"><h1>Label database</h1><p class="lead">\(source)</p></div>
            \(RegimenPages.message(notice: notice, error: nil))
            <section class="card" aria-labelledby="label-database-now">
            <h2 id="label-database-now">On this computer</h2>
            \(state)
            </section>
            <section class="card" aria-labelledby="label-database-import">
            <h2 id="label-database-import">Import DSLD's file</h2>
            <form method="post" action="/settings/label-database/import" class="regimen-form" id="label-database-import-form">\(Layout.csrfField(csrfToken))
            <div class="stack"><label for="label-database-path">Path of the downloaded file on this computer</label>
            <input type="text" id="label-database-path" name="path" value="\(path)" required spellcheck="false" autocomplete="off"\(FormField.attributes("label-database-path", errors: errors, help: true, first: true))>\(FormField.errors(errors, "label-database-path"))
            <p class="help" id="label-database-path-help">The zip as downloaded, or the JSON file in it, for example /home/you/Downloads/DSLD-full-database-JSON.zip. It is far too large to upload, so Cairn reads it where it is. A new import replaces the old database only once it is whole; it takes a minute or two.</p></div>
            <div class="form-actions"><button type="submit" class="button" id="label-database-import-button">Import</button></div>
            </form>
            </section>
            \(remove)
            """
        return Layout.page(title: "Label database", section: .settings, body: body)
    }

    static func searchPage(_ labels: LabelDatabaseService, query: String, csrfToken: String, photoError: String? = nil) throws -> String {
        let head =
            RegimenPages.intro("Add from the label database", lead: "Find the product's label, check its rows, then save it.")
            + RegimenPages.subnav("/regimen/products")
        guard try labels.status() != nil else {
            let body: HTML =
                head + """
                    <section class="card"><p id="label-database-missing">\(LabelDatabaseError.notImported.userMessage)</p>
                    <p>\(source)</p>
                    <p class="card-action"><a class="button" href="/settings/label-database" id="label-database-settings">Import it in Settings</a></p></section>
                    """
            return Layout.page(title: "Add from the label database", section: .regimen, body: body)
        }
        var results: HTML = ""
        if !query.isEmpty {
            let found = try labels.search(query)
            let items = found.map { label -> HTML in
                var meta = [label.brand, label.servingText, label.labelDate.isEmpty ? "" : "label of \(label.labelDate)"].filter { !$0.isEmpty }
                if !label.onMarket { meta.append("off the market") }
                return """
                    <li class="label-result"><a href="/regimen/products/labels/\(label.id)">\(label.name)</a> <span class="regimen-meta">\(meta.joined(separator: " · "))</span></li>
                    """
            }
            results =
                found.isEmpty
                ? "<p class=\"notice\" role=\"status\" id=\"label-search-none\">No label holds every word of that. Try fewer words, or the brand.</p>"
                : "<ol class=\"label-results\" id=\"label-results\" aria-label=\"Labels found\">\(HTML.join(items, separator: "\n"))</ol>"
        }
        let photoErrors = photoError.map { [$0] } ?? []
        let body: HTML =
            head + """
                <form method="get" action="/regimen/products/labels" class="card regimen-form" role="search" id="label-search">
                <div class="stack"><label for="label-search-text">Name or brand</label>
                <input type="search" id="label-search-text" name="q" value="\(query)" maxlength="200"></div>
                <div class="form-actions"><button type="submit" class="button" id="label-search-button">Search</button></div>
                </form>
                \(results)
                <form method="post" action="/regimen/products/labels/barcode" enctype="multipart/form-data" class="card regimen-form" id="label-barcode">\(Layout.csrfField(csrfToken))
                <div class="stack"><label for="label-barcode-photo">Or a photo of the barcode</label>
                <input type="file" id="label-barcode-photo" name="photo" accept="image/jpeg,image/png,image/webp,image/heic,image/heif" required\(FormField.attributes("label-barcode-photo", errors: photoErrors, help: true, first: true))>\(FormField.errors(photoErrors, "label-barcode-photo"))
                <p class="help" id="label-barcode-photo-help">The photo is read in memory and is not kept.</p></div>
                <div class="form-actions"><button type="submit" class="button button-quiet" id="label-barcode-button">Find by barcode</button></div>
                </form>
                <p class="help">\(source)</p>
                """
        return Layout.page(title: "Add from the label database", section: .regimen, body: body)
    }

    static func barcodePage(_ lookup: BarcodeLookup, products: [StoredProduct], csrfToken: String, productError: String? = nil) throws -> String {
        let head = RegimenPages.intro("Add from the label database", lead: "What this barcode finds.") + RegimenPages.subnav("/regimen/products")
        guard let barcode = lookup.barcode else {
            let body: HTML =
                head + """
                    <p class="form-error" role="alert" id="label-barcode-none">No barcode could be read in this photo. Photograph the bars straight on, filling a third of the frame, or search by name.</p>
                    <p><a class="button" href="/regimen/products/labels" id="label-barcode-again">Try again</a></p>
                    """
            return Layout.page(title: "Add from the label database", section: .regimen, body: body)
        }
        var parts: [HTML] = ["<p id=\"label-barcode-number\">Barcode <strong>\(barcode.printed)</strong>.</p>"]
        if let yours = lookup.yourProduct {
            parts.append("<p id=\"label-barcode-yours\">It is your product <a href=\"/regimen/products/\(yours.id)\">\(yours.name)</a>.</p>")
        }
        if !lookup.labels.isEmpty {
            let items = lookup.labels.map { label -> HTML in
                "<li><a href=\"/regimen/products/labels/\(label.id)\">\(label.name)</a> <span class=\"regimen-meta\">\([label.brand, label.labelDate.isEmpty ? "" : "label of \(label.labelDate)"].filter { !$0.isEmpty }.joined(separator: " · "))</span></li>"
            }
            parts.append("<ol class=\"label-results\" id=\"label-results\" aria-label=\"Labels with this barcode\">\(HTML.join(items))</ol>")
        }
        if !lookup.labelDatabaseImported { parts.append("<p class=\"notice\">\(LabelDatabaseError.notImported.userMessage)</p>") }
        if lookup.isUnknown || lookup.yourProduct == nil {
            let options: [HTML] =
                ["<option value=\"\">Choose…</option>"]
                + products.map { p -> HTML in "<option value=\"\(p.product.id.rawValue)\">\(p.product.name)</option>" }
            let errors = productError.map { [$0] } ?? []
            let lead: HTML =
                lookup.isUnknown
                ? "Nothing knows this barcode yet. Link it to one of your products, and it finds that product next time."
                : "Or link it to one of your own products."
            parts.append(
                products.isEmpty
                    ? "<p>\(lead) <a href=\"/regimen/products/new\">Add a product</a> first.</p>"
                    : """
                    <form method="post" action="/regimen/products/labels/teach" class="card regimen-form" id="label-teach">\(Layout.csrfField(csrfToken))
                    <input type="hidden" name="barcode" value="\(barcode.digits)">
                    <p>\(lead)</p>
                    <div class="stack"><label for="label-teach-product">Your product</label>
                    <select id="label-teach-product" name="product" required\(FormField.attributes("label-teach-product", errors: errors, first: true))>\(HTML.join(options))</select>\(FormField.errors(errors, "label-teach-product"))</div>
                    <div class="form-actions"><button type="submit" class="button" id="label-teach-button">Link the barcode</button></div>
                    </form>
                    """)
        }
        return Layout.page(title: "Add from the label database", section: .regimen, body: head + HTML.join(parts, separator: "\n"))
    }
}
