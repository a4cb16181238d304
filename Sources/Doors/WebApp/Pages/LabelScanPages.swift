import CairnApp
import CairnCore
import Foundation
import Regimen
import TextRecognition

/// Adding a product from a photo of its Supplement Facts label: `GET|POST /regimen/products/scan` (upload, then
/// the review page) and `POST /regimen/products/scan/confirm` (check again, add a row, or save).
///
/// The photo is used in memory only: the upload is read and dropped with the request. The review page shows a
/// smaller copy as a `data:` URL and carries it in a hidden field, so a page shown again (a refused save, a
/// row added) still shows it; nothing is kept on the server between requests, and nothing is written. Nothing
/// is saved until the person chooses "Save product", and a save whose edits raise a flag the person has not
/// seen yet shows the page again instead.
enum LabelScanPages {
    /// The largest preview accepted back from the review form (a 1400 px JPEG is well under it).
    static let maximumPreviewBytes = 4 * 1024 * 1024

    static func routes(_ regimen: RegimenService, scanner: LabelScanService?, labels: LabelDatabaseService, csrfToken: String) -> [Route] {
        [
            route(.get, "/regimen/products/scan") { _ in .html(upload(csrfToken: csrfToken, scannerAvailable: scanner != nil)) },
            route(.post, "/regimen/products/scan") { r in
                guard let scanner else { return .html(upload(csrfToken: csrfToken, scannerAvailable: false), status: 503) }
                guard let photo = r.request.formValue("photo"), !photo.isEmpty else {
                    return .html(upload(csrfToken: csrfToken, error: "Choose a photo of the label first."), status: 400)
                }
                let proposal: LabelProposal
                let preview: Data
                do {
                    proposal = try scanner.propose(imageData: photo)
                    preview = try scanner.preview(imageData: photo)
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(upload(csrfToken: csrfToken, error: error.userMessage + " Nothing was saved."), status: 400)
                }
                var review = Review(proposal: proposal, preview: preview)
                // The barcode in the same photo, when the label database knows it: both are shown side by side.
                if let match = labels.comparison(of: proposal, photo: photo) {
                    review.compare(with: match.label, match.comparison, checker: scanner)
                }
                return .html(page(review, csrfToken: csrfToken))
            },
            route(.post, "/regimen/products/scan/confirm") { r in
                // A label from the label database is checked without Tesseract: the catalogue's matcher is enough.
                guard let scanner = try scanner ?? (r.form["label-id"].map { _ in try labels.checker() }) else {
                    return .html(upload(csrfToken: csrfToken, scannerAvailable: false), status: 503)
                }
                var review = Review(form: r.form, scanner: scanner)
                switch r.form["action"] ?? "save" {
                case "add":
                    review.rows.append(Review.Row())
                    review.notice = "A new row was added at the end. Nothing is saved until you choose Save product."
                    return .html(page(review, csrfToken: csrfToken, focusLastRow: true))
                case "check":
                    review.notice = "Checked again. Nothing is saved until you choose Save product."
                    return .html(page(review, csrfToken: csrfToken))
                default:
                    return try save(review, regimen: regimen, scanner: scanner, csrfToken: csrfToken)
                }
            },
        ]
    }

    /// Saves the reviewed product, or shows the page again with the person's edits and why nothing was saved.
    private static func save(
        _ reviewed: Review, regimen: RegimenService, scanner: LabelScanService,
        csrfToken: String
    ) throws -> Response {
        var review = reviewed
        guard !review.hasFieldErrors else {
            review.error = "Some fields need a look; each is marked below. Nothing was saved."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
        let unchosen = review.rows.enumerated().filter { $0.element.needsChoice }.map { $0.offset + 1 }
        if !unchosen.isEmpty {
            let numbers = FlaggedRowsUndecided.join(unchosen.map(String.init))
            review.error =
                "The photo and the label database differ on \(unchosen.count == 1 ? "row \(numbers)" : "rows \(numbers)"): choose which is right for your bottle. Nothing was saved."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
        if review.rows.contains(where: { !$0.unseenFlags.isEmpty }) {
            review.error =
                "Your edits raised something to check, marked beside the row. Nothing was saved yet: look at it, then choose Save product again."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
        // The gate: a flagged row is saved only when the person ticked that they checked it (or left it out).
        let undecided = review.rows.enumerated().filter { $0.element.needsDecision && !$0.element.accepted }.map { $0.offset + 1 }
        if !undecided.isEmpty {
            let numbers = FlaggedRowsUndecided.join(undecided.map(String.init))
            review.error =
                "\(undecided.count == 1 ? "Row \(numbers) is" : "Rows \(numbers) are") flagged. Check each against the label, then tick \"I checked this row\" to save it as it is, change it, or leave it out. Nothing was saved."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
        guard review.rows.contains(where: { $0.checked != nil }) else {
            review.error = "There are no rows to save. Add the rows by hand, or try another photo. Nothing was saved."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
        do {
            guard let form = review.productForm else { throw RegimenError.noProductForm }
            let kept = review.rows.compactMap(\.checked)
            let product = try scanner.product(
                fromReviewed: kept, servingSize: review.servingSize,
                name: review.name.trimmingCharacters(in: .whitespaces),
                brand: review.brand.trimmingCharacters(in: .whitespaces), form: form)
            let decisions = RowDecisions(
                accepted: Set(review.rows.enumerated().filter { $0.element.accepted }.map { $0.offset + 1 }),
                readFlags: Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($0.offset + 1, $0.element.flags) }))
            let saved = try regimen.addProduct(product, decisions: decisions)
            return .redirect(to: "/regimen/products/\(saved.product.id.rawValue)?added=1")
        } catch let error as CairnError where error.errorKind == .refusedInput {
            review.error = error.userMessage + " Nothing was saved."
            return .html(page(review, csrfToken: csrfToken), status: 400)
        }
    }

    // MARK: the state of a review page

    /// Everything on the review page: the product fields, the rows as the person left them, the photo.
    struct Review {
        /// One row: the fields as typed, what the row was read from, and its check.
        struct Row {
            var name = "", form = "", amount = "", unit = "", dailyValue = ""
            var boxes: [TextBox] = []
            var confidence: Double?
            /// The flags only the photo could raise (`LabelFlag.fromPhoto`), kept while the row is unchanged.
            var photoFlags: Set<LabelFlag.Kind> = []
            /// The fields as they were read (to tell an unchanged row from an edited one).
            var asRead = ""
            var marker: DailyValueMarker?
            var isBlend = false
            var blendName: String?
            /// The flag kinds the page showed for this row when it was submitted.
            var shown: Set<LabelFlag.Kind> = []
            /// The person ticked "I checked this row against the label" for the flags shown.
            var ticked = false
            /// Accepted as it is: ticked, and every flag it carries was shown when it was ticked.
            var accepted: Bool { ticked && needsDecision && unseenFlags.isEmpty }
            /// True when the row is saved only once accepted (`LabelGate`).
            var needsDecision: Bool { checked?.needsDecision ?? false }
            /// The row matched and flagged again; nil while a field cannot be read.
            var checked: LabelProposalRow?
            /// Why a field of the row cannot be read.
            var error: String?
            /// Where the row comes from.
            var source = Source.read
            /// The label database's amount, unit and %DV for a read row where the two differ (`alternativeField`).
            var alternative = ""
            /// The person's choice: "read" or "database" for a row that differs, "add" or "leave" for a row only
            /// in the label database; empty until they choose.
            var choice = ""

            enum Source: String {
                /// Read from the photo, or added by hand.
                case read
                /// From a label of the label database.
                case database
                /// In the label database's label, not read from the photo.
                case onlyInDatabase = "database-only"
            }

            /// True while the person has not chosen between the photo and the label database for this row.
            var needsChoice: Bool { (!alternative.isEmpty || source == .onlyInDatabase) && choice.isEmpty }

            var fingerprint: String { [name, form, amount, unit, dailyValue].joined(separator: "\u{1F}") }
            var isBlank: Bool { [name, form, amount, dailyValue].allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
            var flags: [LabelFlag] { checked?.flags ?? [] }
            /// Flags the page has not shown yet (a save waits for the person to see them).
            var unseenFlags: [LabelFlag] { flags.filter { !shown.contains($0.kind) } }
        }

        var name = "", brand = "", form = "", serving = "1"
        var servingOnLabel: String?
        var rows: [Row] = []
        var otherIngredients: [String] = []
        var notIngredients: [String] = []
        var warnings: [String] = []
        /// The outcome of reading, when the page comes straight from a photo.
        var status: LabelProposal.Status = .proposed
        var statusMessage: String?
        var preview: Data?
        var photoWidth = 0, photoHeight = 0
        var notice: String?
        var error: String?
        var nameError: String?, formError: String?, servingError: String?
        var servingSize: Amount?
        /// The label database's label the rows come from or are compared with, and how it is described.
        var labelID: Int?
        var labelAbout = ""

        var productForm: ProductForm? { try? ProductForm(parsing: form) }
        var hasFieldErrors: Bool {
            nameError != nil || formError != nil || servingError != nil || rows.contains { $0.error != nil }
        }

        /// The page for a fresh proposal (`preview`: the photo's, nil for a label of the label database).
        init(proposal: LabelProposal, preview: Data?) {
            status = proposal.status
            statusMessage = proposal.message
            warnings = proposal.warnings
            otherIngredients = proposal.otherIngredients
            notIngredients = proposal.notIngredients
            servingOnLabel = proposal.servingSizeText
            servingSize = proposal.servingSize
            serving = proposal.servingSize?.servingText ?? "1"
            form = proposal.suggestedForm?.rawValue ?? ""
            self.preview = preview
            photoWidth = proposal.photoWidth ?? 0
            photoHeight = proposal.photoHeight ?? 0
            rows = proposal.rows.map { read in
                var row = Row()
                row.name = read.nameOnLabel
                row.form = read.form ?? ""
                row.amount = read.amount.map { "\($0.value)" } ?? ""
                row.unit = read.amount?.unit.rawValue ?? ""
                row.dailyValue = read.dailyValuePercent.map { "\($0)" } ?? ""
                row.boxes = read.wordBoxes
                row.confidence = read.confidence
                row.photoFlags = Set(read.flags.map(\.kind).filter { LabelFlag.fromPhoto($0) != nil })
                row.asRead = row.fingerprint
                row.marker = read.dailyValueMarker
                row.isBlend = read.isBlend
                row.blendName = read.blendName
                row.checked = read
                return row
            }
        }

        /// The page as the person submitted it, every row matched and flagged again.
        init(form fields: [String: String], scanner: LabelScanService) {
            name = fields["name"] ?? ""
            brand = fields["brand"] ?? ""
            form = fields["form"] ?? ""
            serving = fields["serving"] ?? ""
            let other = fields["other-ingredients"] ?? ""
            otherIngredients = other.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            notIngredients = (fields["not-ingredients"] ?? "").split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            photoWidth = Int(fields["photo-width"] ?? "") ?? 0
            photoHeight = Int(fields["photo-height"] ?? "") ?? 0
            preview = LabelScanPages.preview(fromField: fields["photo"])
            labelID = fields["label-id"].flatMap { Int($0) }
            labelAbout = fields["label-about"] ?? ""
            if name.trimmingCharacters(in: .whitespaces).isEmpty {
                nameError = RegimenError.emptyProductName.userMessage
            } else {
                do { try TextInput.name(name, field: "product name") } catch let error as CairnError { nameError = error.userMessage } catch {}
            }
            do { _ = try ProductForm(parsing: form) } catch { formError = (error as? CairnError)?.userMessage }
            do { servingSize = try Amount(serving: serving) } catch let error as CairnError {
                servingError = error.userMessage
            } catch { servingError = RegimenError.unreadableServing.userMessage }
            let count = min(Int(fields["rows"] ?? "") ?? 0, 500)
            for i in 0..<count {
                func field(_ key: String) -> String { fields["row-\(i)-\(key)"] ?? "" }
                guard field("remove").isEmpty else { continue }
                var row = Row()
                // Name and form are wrapping text areas: a line break typed in one is a space.
                row.name = field("name").split(whereSeparator: \.isNewline).joined(separator: " ")
                row.form = field("form").split(whereSeparator: \.isNewline).joined(separator: " ")
                row.amount = field("amount")
                row.unit = field("unit")
                row.dailyValue = field("dv")
                row.asRead = field("read")
                row.confidence = Double(field("confidence")).flatMap { (0...1).contains($0) ? $0 : nil }
                row.photoFlags = Set(field("photo-flags").split(separator: ",").compactMap { LabelFlag.Kind(rawValue: String($0)) })
                row.boxes = LabelScanPages.boxes(fromField: field("boxes"))
                row.marker = DailyValueMarker(rawValue: field("marker"))
                row.isBlend = field("blend-total") == "1"
                row.blendName = field("blend").isEmpty ? nil : field("blend")
                row.shown = Set(field("shown").split(separator: ",").compactMap { LabelFlag.Kind(rawValue: String($0)) })
                row.ticked = field("accept") == "1"
                row.source = Row.Source(rawValue: field("source")) ?? .read
                row.alternative = field("alt")
                row.choice = field("use")
                if row.source == .onlyInDatabase, row.choice == "leave" { continue }
                if row.choice == "database", let values = Review.values(ofAlternative: row.alternative) {
                    (row.amount, row.unit, row.dailyValue) = values
                }
                // A row left empty (an added row never filled in) is dropped.
                if row.isBlank && row.boxes.isEmpty { continue }
                row.check(with: scanner)
                rows.append(row)
            }
        }
    }

    // MARK: pages

    static func upload(csrfToken: String, scannerAvailable: Bool = true, error: String? = nil) -> String {
        let intro =
            RegimenPages.intro(
                "Add a product from its label",
                lead:
                    "Photograph the Supplement Facts panel straight on, filling the frame, in even light. Cairn reads it on this computer and shows you every row to check before anything is saved."
            ) + RegimenPages.subnav("/regimen/products")
        guard scannerAvailable else {
            return Layout.page(
                title: "Add a product from its label", section: .regimen,
                body: intro + """
                    <p class="form-error" role="alert" id="regimen-error">\(TextRecognitionError(kind: .engineUnavailable).userMessage)</p>
                    <p><a class="button button-quiet" href="/regimen/products/new">Type the label in instead</a></p>
                    """)
        }
        let message = RegimenPages.message(notice: nil, error: error)
        let body =
            intro + """
                <form method="post" action="/regimen/products/scan" enctype="multipart/form-data" class="card regimen-form scan-upload" id="scan-upload">\(Layout.csrfField(csrfToken))
                \(message)
                <div class="stack"><label for="scan-photo">Photo of the Supplement Facts panel</label>
                <input type="file" id="scan-photo" name="photo" accept="image/jpeg,image/png,image/webp,image/heic,image/heif" required aria-describedby="scan-photo-help">
                <p class="help" id="scan-photo-help">JPEG, PNG, WebP or HEIC. The photo is read in memory and is not kept: it is not saved with the product.</p></div>
                <div class="form-actions"><button type="submit" class="button" id="scan-read">Read the label</button>
                <a class="button button-quiet" href="/regimen/products/new">Type the label in instead</a></div>
                <p class="help scan-progress" id="scan-progress" role="status" aria-live="polite"></p>
                </form>
                <script src="/assets/label-scan.js" defer></script>
                """
        return Layout.page(title: "Add a product from its label", section: .regimen, body: body)
    }

    /// The review page: the photo with each row's box, and the editable fields with every flag.
    static func page(_ review: Review, csrfToken: String, focusLastRow: Bool = false) -> String {
        var messages: [HTML] = []
        if let message = review.statusMessage {
            let cls = review.status == .proposed ? "notice" : "form-error"
            let role = review.status == .proposed ? "status" : "alert"
            messages.append("<p class=\"\(cls)\" role=\"\(role)\" id=\"scan-message\">\(message)</p>")
            if review.status != .proposed {
                messages.append(
                    "<p class=\"regimen-toolbar\"><a class=\"button\" href=\"/regimen/products/scan\" id=\"scan-retry\">Try another photo</a> <span class=\"regimen-meta\">or type the rows in below.</span></p>"
                )
            }
        }
        for (i, warning) in review.warnings.enumerated() {
            messages.append("<p class=\"notice scan-warning\" id=\"scan-warning-\(i)\">\(warning)</p>")
        }
        messages.append(RegimenPages.message(notice: review.notice, error: review.error))
        let photo = photoFigure(review)
        func selected(_ on: Bool) -> HTML { on ? " selected" : "" }
        let formOptions: [HTML] =
            ["<option value=\"\"\(selected(review.form.isEmpty))>Choose…</option>"]
            + ProductForm.allCases.map { f -> HTML in
                "<option value=\"\(f.rawValue)\"\(selected(f.rawValue == review.form))>\(f.rawValue)</option>"
            }
        let servingHelp: HTML = review.servingOnLabel.map { "The label says: \($0). " } ?? ""
        let rows = review.rows.enumerated().map { i, row in
            rowHTML(row, index: i, autofocus: focusLastRow && i == review.rows.count - 1)
        }
        let empty: HTML =
            review.rows.isEmpty
            ? "<p class=\"help\" id=\"scan-no-rows\">No rows were read. Try another photo, or add the rows by hand.</p>" : ""
        var other: HTML =
            review.otherIngredients.isEmpty
            ? ""
            : """
            <p class="help scan-other" id="scan-other"><strong>Other ingredients (not saved as rows):</strong> \(review.otherIngredients.joined(separator: ", "))</p>
            """
        if !review.notIngredients.isEmpty {
            let items = review.notIngredients.map { item -> HTML in "<li>\(item)</li>" }
            other +=
                "<div class=\"help scan-other\" id=\"scan-not-ingredients\"><strong>Left out, not ingredients:</strong><ul>\(items)</ul><p>Add a row by hand if one of these is an ingredient.</p></div>"
        }
        let photoField = review.preview.map { $0.base64EncodedString() } ?? ""
        let formErrors = review.formError.map { [$0] } ?? []
        let head = RegimenPages.intro("Check the label", lead: Disclaimer.labelReading.text) + RegimenPages.subnav("/regimen/products")
        let form: HTML = """
            <form method="post" action="/regimen/products/scan/confirm" class="scan-review" id="scan-review" novalidate>\(Layout.csrfField(csrfToken))
            <input type="hidden" name="photo" value="\(photoField)">
            <input type="hidden" name="photo-width" value="\(review.photoWidth)">
            <input type="hidden" name="photo-height" value="\(review.photoHeight)">
            <input type="hidden" name="rows" value="\(review.rows.count)">
            \(review.labelID.map { id -> HTML in "<input type=\"hidden\" name=\"label-id\" value=\"\(id)\"><input type=\"hidden\" name=\"label-about\" value=\"\(review.labelAbout)\">" })
            <input type="hidden" name="other-ingredients" value="\(review.otherIngredients.joined(separator: "\n"))">
            <input type="hidden" name="not-ingredients" value="\(review.notIngredients.joined(separator: "\n"))">
            <div class="scan-layout">
            \(photo)
            <div class="scan-fields">
            <fieldset class="card scan-product">
            <legend>Product</legend>
            \(textField(id: "scan-name", name: "name", label: "Name", value: review.name, error: review.nameError, required: true,
               maxLength: TextInput.maximumNameLength))
            \(textField(id: "scan-brand", name: "brand", label: "Brand <span class=\"help\">(optional)</span>", value: review.brand, error: nil,
               maxLength: TextInput.maximumNameLength))
            <div class="stack"><label for="scan-form">Form</label>
            <select id="scan-form" name="form"\(FormField.attributes("scan-form", errors: formErrors))>\(formOptions)</select>\(FormField.errors(formErrors, "scan-form"))</div>
            \(textField(id: "scan-serving", name: "serving", label: "One serving", value: review.serving, error: review.servingError,
                help: servingHelp + "A number of units (2 for two capsules), or an amount such as 5 g."))
            </fieldset>
            <fieldset class="card scan-rows-set">
            <legend>Ingredients, per serving</legend>
            \(empty)
            <ol class="scan-rows" id="scan-rows">
            \(HTML.join(rows, separator: "\n"))
            </ol>
            \(other)
            </fieldset>
            <div class="form-actions scan-actions">
            <button type="submit" class="button" name="action" value="save" id="scan-save">Save product</button>
            <button type="submit" class="button button-quiet" name="action" value="check" id="scan-check">Check my edits</button>
            <button type="submit" class="button button-quiet" name="action" value="add" id="scan-add">Add a row</button>
            <a class="button-link" href="/regimen/products/scan" id="scan-again">Try another photo</a>
            </div>
            <p class="help">Nothing is saved until you choose Save product. Leaving this page discards the photo and the rows.</p>
            </div>
            </div>
            </form>
            <script src="/assets/label-scan.js" defer></script>
            """
        return Layout.page(title: "Check the label", section: .regimen, body: head + HTML.join(messages) + form)
    }

    /// The photo with one outlined, numbered box per row (an SVG in the photo's own pixel space, stretched over it).
    static func photoFigure(_ review: Review) -> HTML {
        let fromDatabase: HTML? =
            review.labelID == nil
            ? nil
            : """
            <p class="help" id="scan-label-database">\(review.labelAbout)</p>
            """
        if review.preview == nil, let fromDatabase {
            return "<figure class=\"card scan-photo\">\(fromDatabase)</figure>"
        }
        guard let preview = review.preview, review.photoWidth > 0, review.photoHeight > 0 else {
            return
                "<figure class=\"card scan-photo\"><p class=\"help\">The photo is not shown again after this page was sent back; the rows are kept.</p></figure>"
        }
        let w = review.photoWidth
        let h = review.photoHeight
        let marks = review.rows.enumerated().compactMap { i, row -> HTML? in
            // One outline per word: on a tilted photo the words follow the line, where one box around the row
            // would also cover its neighbours.
            guard let first = row.boxes.first, let all = union(row.boxes) else { return nil }
            let pad = max(2, all.height / 8)
            let words = row.boxes.map { box -> HTML in
                let x = max(0, box.x - pad)
                let y = max(0, box.y - pad)
                return
                    "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(min(w - x, box.width + 2 * pad))\" height=\"\(min(h - y, box.height + 2 * pad))\" rx=\"\(pad)\" vector-effect=\"non-scaling-stroke\"/>"
            }
            let r = max(Double(first.height) * 0.6, Double(max(w, h)) / 80)
            let cx = max(r, Double(first.x - pad) - r * 1.2)
            let cy = Double(first.y) + Double(first.height) / 2
            return """
                <g class="scan-box" id="scan-box-\(i)" data-row="\(i)">\(words)\
                <circle cx="\(fmt(cx))" cy="\(fmt(cy))" r="\(fmt(r))"/><text x="\(fmt(cx))" y="\(fmt(cy))" font-size="\(fmt(r * 1.25))" text-anchor="middle" dominant-baseline="central">\(i + 1)</text></g>
                """
        }
        return """
            <figure class="card scan-photo" id="scan-photo" tabindex="0">
            <div class="scan-stage">
            <img class="scan-image" id="scan-image" src="data:image/jpeg;base64,\(preview.base64EncodedString())" width="\(w)" height="\(h)" alt="The label photo, with a numbered box around each row that was read">
            <svg class="scan-boxes" id="scan-boxes" viewBox="0 0 \(w) \(h)" preserveAspectRatio="none" aria-hidden="true" focusable="false">
            \(HTML.join(marks, separator: "\n"))
            </svg>
            </div>
            <figcaption class="help">Each numbered box is where that row was read. The photo is not kept.</figcaption>
            \(fromDatabase)
            </figure>
            """
    }

    static func rowHTML(_ row: Review.Row, index i: Int, autofocus: Bool) -> HTML {
        let id = "row-\(i)"
        func selected(_ on: Bool) -> HTML { on ? " selected" : "" }
        let unitOptions: [HTML] =
            ["<option value=\"\"\(selected(row.unit.isEmpty))>—</option>"]
            + DoseUnit.allCases.map { u -> HTML in
                "<option value=\"\(u.rawValue)\"\(selected(u.rawValue == row.unit))>\(u.symbol)</option>"
            }
        var about: [String] = []
        if let match = row.checked?.catalogueName { about.append("Matched to \(match)") }
        if row.isBlend { about.append("blend total") }
        if let blend = row.blendName { about.append("in \(blend)") }
        switch row.source {
        case .database: about.append("from the label database")
        case .onlyInDatabase: about.append("only in the label database: not read from the photo")
        case .read: if row.boxes.isEmpty { about.append("added by hand") }
        }
        let flags = row.flags.map { flag -> HTML in
            "<li class=\"scan-flag scan-flag-\(flag.kind.rawValue)\"><strong>\(flag.title):</strong> \(flag.reason)</li>"
        }
        let flagList: HTML = flags.isEmpty ? "" : "<ul class=\"scan-flags\" id=\"\(id)-flags\" aria-label=\"Flags for row \(i + 1)\">\(flags)</ul>"
        let described = [flags.isEmpty ? nil : "\(id)-flags", row.error == nil ? nil : "\(id)-error"].compactMap { $0 }.joined(separator: " ")
        let describedBy: HTML = described.isEmpty ? "" : " aria-describedby=\"\(described)\""
        let rowError = row.error.map { error -> HTML in "<p class=\"field-error\" id=\"\(id)-error\">\(error)</p>" }
        let hidden = [
            ("boxes", row.boxes.map { "\($0.x),\($0.y),\($0.width),\($0.height)" }.joined(separator: " ")),
            ("confidence", row.confidence.map { String($0) } ?? ""),
            ("photo-flags", LabelFlag.Kind.allCases.filter(row.photoFlags.contains).map(\.rawValue).joined(separator: ",")), ("read", row.asRead),
            ("marker", row.marker?.rawValue ?? ""), ("blend-total", row.isBlend ? "1" : ""), ("blend", row.blendName ?? ""),
            ("shown", row.flags.map(\.kind.rawValue).joined(separator: ",")), ("source", row.source.rawValue), ("alt", row.alternative),
        ].map { field -> HTML in "<input type=\"hidden\" name=\"\(id)-\(field.0)\" value=\"\(field.1)\">" }
        let flagged: HTML = row.flags.isEmpty ? "" : " is-flagged"
        let checked: HTML = row.accepted ? " checked" : ""
        let acceptBox: HTML =
            !row.needsDecision
            ? ""
            : """
            <p class="scan-accept"><input type="checkbox" id="\(id)-accept" name="\(id)-accept" value="1"\(checked)> <label for="\(id)-accept">I checked this row against the label: save it as it is</label></p>
            """
        let focus: HTML = autofocus ? " autofocus" : ""
        let invalid: HTML = row.error == nil ? "" : " aria-invalid=\"true\""
        return """
            <li class="scan-row\(flagged)" id="\(id)" data-row="\(i)">\(hidden)
            <p class="scan-row-head"><span class="scan-number" aria-hidden="true">\(i + 1)</span> <span class="visually-hidden">Row \(i + 1)</span><span class="regimen-meta">\(about.joined(separator: " · "))</span></p>
            <div class="scan-grid">
            <div class="stack scan-name"><label for="\(id)-name">Name</label><textarea id="\(id)-name" name="\(id)-name" rows="\(lines(row.name))" maxlength="\(TextInput.maximumNameLength)"\(describedBy)\(focus)>\(row.name)</textarea></div>
            <div class="stack scan-as"><label for="\(id)-form">As <span class="help">(form, optional)</span></label><textarea id="\(id)-form" name="\(id)-form" rows="\(lines(row.form))" maxlength="\(TextInput.maximumNameLength)">\(row.form)</textarea></div>
            <div class="stack scan-amount"><label for="\(id)-amount">Amount</label><input type="text" inputmode="decimal" id="\(id)-amount" name="\(id)-amount" value="\(row.amount)" maxlength="20"\(invalid)\(describedBy)></div>
            <div class="stack scan-unit"><label for="\(id)-unit">Unit</label><select id="\(id)-unit" name="\(id)-unit">\(unitOptions)</select></div>
            <div class="stack scan-dv"><label for="\(id)-dv">%DV</label><input type="text" inputmode="decimal" id="\(id)-dv" name="\(id)-dv" value="\(row.dailyValue)" maxlength="10"></div>
            </div>
            \(rowError)\(choiceHTML(row, id: id))\(flagList)\(acceptBox)
            <p class="scan-remove"><input type="checkbox" id="\(id)-remove" name="\(id)-remove" value="1"> <label for="\(id)-remove">Leave out this row</label></p>
            </li>
            """
    }

    // MARK: helpers

    /// A text field; `label` and `help` are markup.
    private static func textField(
        id: String, name: String, label: HTML, value: String, error: String?, required: Bool = false,
        help: HTML? = nil, maxLength: Int = 200
    ) -> HTML {
        let helpHTML = help.map { help -> HTML in "<p class=\"help\" id=\"\(id)-help\">\(help)</p>" }
        let errors = error.map { [$0] } ?? []
        let requiredHTML: HTML = required ? " required" : ""
        return """
            <div class="stack"><label for="\(id)">\(label)</label>
            <input type="text" id="\(id)" name="\(name)" value="\(value)" maxlength="\(maxLength)"\(requiredHTML)\(FormField.attributes(id, errors: errors, help: help != nil))>\(FormField.errors(errors, id))\(helpHTML)</div>
            """
    }

    private static func fmt(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Enough text lines to show `value` whole in a narrow field (it wraps; nothing is clipped).
    private static func lines(_ value: String) -> Int { max(1, min(6, (value.count + 21) / 22)) }

    /// The box around all of a row's word boxes; nil for none.
    static func union(_ boxes: [TextBox]) -> TextBox? {
        guard let first = boxes.first else { return nil }
        var x0 = first.x
        var y0 = first.y
        var x1 = first.x + first.width
        var y1 = first.y + first.height
        for b in boxes.dropFirst() {
            x0 = min(x0, b.x)
            y0 = min(y0, b.y)
            x1 = max(x1, b.x + b.width)
            y1 = max(y1, b.y + b.height)
        }
        return TextBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Word boxes from a hidden field ("x,y,w,h x,y,w,h"); anything malformed is dropped.
    static func boxes(fromField text: String) -> [TextBox] {
        text.split(separator: " ").prefix(200).compactMap { part in
            let n = part.split(separator: ",").compactMap { Int($0) }
            guard n.count == 4, n.allSatisfy({ $0 >= 0 && $0 < 100_000 }) else { return nil }
            return TextBox(x: n[0], y: n[1], width: n[2], height: n[3])
        }
    }

    /// The preview carried by the review form: base64 of a JPEG, else nil (it is only ever shown as an image).
    static func preview(fromField text: String?) -> Data? {
        guard let text, !text.isEmpty, text.utf8.count <= maximumPreviewBytes * 4 / 3 + 4,
            let data = Data(base64Encoded: text), data.count <= maximumPreviewBytes,
            data.starts(with: [0xFF, 0xD8, 0xFF])
        else { return nil }
        return data
    }
}

extension LabelScanPages.Review.Row {
    /// Reads the typed fields and matches and flags the row through the scanner (the CLI's flags).
    mutating func check(with scanner: LabelScanService) {
        error = nil
        checked = nil
        let trimmedName = name.trimmingCharacters(in: .whitespaces)
        var amountValue: Amount?
        let amountText = amount.trimmingCharacters(in: .whitespaces)
        if !amountText.isEmpty {
            do {
                guard let dose = DoseUnit(rawValue: unit) else {
                    error = "Choose the unit of the amount."
                    return
                }
                amountValue = try Amount(try LabelUnitParser.number(amountText), dose)
            } catch let failure as CairnError {
                error = failure.userMessage + " Write the amount as a number, such as 25 or 0.5."
                return
            } catch {
                self.error = "Write the amount as a number, such as 25 or 0.5."
                return
            }
        }
        var percent: Decimal?
        let dvText = dailyValue.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "%", with: "")
            .trimmingCharacters(in: .whitespaces)
        if !dvText.isEmpty {
            guard let value = try? LabelUnitParser.number(dvText) else {
                error = "Write the %DV as a number, such as 125, or leave it empty."
                return
            }
            percent = value
        }
        guard !trimmedName.isEmpty else {
            error = "Give this row a name, or leave it out."
            return
        }
        let unchanged = fingerprint == asRead
        checked = scanner.revalidate(
            EditedLabelRow(
                nameOnLabel: trimmedName, form: form, amount: amountValue, dailyValuePercent: percent,
                dailyValueMarker: unchanged ? marker : nil, isBlend: isBlend, blendName: blendName, wordBoxes: boxes,
                readConfidence: unchanged ? confidence : nil, readPhotoFlags: unchanged ? photoFlags : []))
    }
}

extension LabelScanPages.Review {
    /// The page for a label of the label database: its rows, flagged as a scan's, with no photo.
    init(label: LabelRecord, proposal: LabelProposal) {
        self.init(proposal: proposal, preview: nil)
        name = label.name
        brand = label.brand
        form = label.suggestedForm?.rawValue ?? ""
        labelID = label.id
        labelAbout = LabelScanPages.about(label, lead: "From the label database")
        for index in rows.indices { rows[index].source = .database }
    }

    /// Shows the label database's label beside the rows read from the photo: a row whose amount or %DV differ
    /// carries the database's values to choose from, and a row the photo did not give is added for the person to
    /// add or leave out. Nothing is chosen for them.
    mutating func compare(with label: LabelRecord, _ comparison: LabelComparison, checker: LabelScanService) {
        guard comparison.disagrees else { return }
        labelID = label.id
        labelAbout = LabelScanPages.about(label, lead: "The barcode in this photo is in the label database")
        for pair in comparison.pairs where pair.differs && rows.indices.contains(pair.readIndex) {
            rows[pair.readIndex].alternative = Self.alternative(of: pair.database)
        }
        for missing in comparison.onlyInDatabase {
            var row = Row()
            row.name = missing.name
            row.form = missing.form ?? ""
            (row.amount, row.unit, row.dailyValue) = Self.values(of: missing)
            row.asRead = row.fingerprint
            row.isBlend = missing.isBlend
            row.blendName = missing.blendName
            row.source = .onlyInDatabase
            row.check(with: checker)
            rows.append(row)
        }
        warnings.append(
            "The label database's label for this barcode differs from what was read. Both are shown: for each row marked, choose which matches your bottle (a label may have changed since)."
        )
    }

    /// A database row's amount, unit and %DV as the review's fields write them.
    static func values(of row: LabelRecordRow) -> (String, String, String) {
        (row.amount.map { "\($0.value)" } ?? "", row.amount?.unit.rawValue ?? "", row.dailyValuePercent.map { "\($0)" } ?? "")
    }

    /// The hidden field carrying a database row's values.
    static func alternative(of row: LabelRecordRow) -> String {
        let (amount, unit, dv) = values(of: row)
        return [amount, unit, dv].joined(separator: "|")
    }

    /// The values of a hidden `alternative` field; nil when it is not three fields.
    static func values(ofAlternative text: String) -> (String, String, String)? {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[1].isEmpty || DoseUnit(rawValue: parts[1]) != nil else { return nil }
        return (parts[0], parts[1], parts[2])
    }
}

extension LabelScanPages {
    /// "From the label database: NAME (BRAND), label of DATE, DSLD label ID."
    static func about(_ label: LabelRecord, lead: String) -> String {
        var text = "\(lead): \(label.name)"
        if !label.brand.isEmpty { text += " (\(label.brand))" }
        if !label.labelDate.isEmpty { text += ", label of \(label.labelDate)" }
        text += ", DSLD label \(label.id)."
        if !label.onMarket { text += " Listed as off the market." }
        return text
    }

    /// The choice between the photo and the label database for a row that needs one (none chosen beforehand).
    static func choiceHTML(_ row: Review.Row, id: String) -> HTML {
        func radio(_ value: String, _ label: String) -> HTML {
            let checked: HTML = row.choice == value ? " checked" : ""
            return
                "<label class=\"scan-choice-option\"><input type=\"radio\" name=\"\(id)-use\" value=\"\(value)\"\(checked)> \(label)</label>"
        }
        if row.source == .onlyInDatabase {
            return """
                <fieldset class="scan-choice" id="\(id)-choice"><legend>Only the label database has this row. Is it on your bottle?</legend>
                \(radio("add", "Yes: save it")) \(radio("leave", "No: leave it out"))</fieldset>
                """
        }
        guard !row.alternative.isEmpty, let (amount, unit, dv) = Review.values(ofAlternative: row.alternative) else { return "" }
        func describe(_ amount: String, _ unit: String, _ dv: String) -> String {
            let unitText = DoseUnit(rawValue: unit)?.symbol ?? unit
            var text = amount.isEmpty ? "no amount" : "\(amount) \(unitText)"
            if !dv.isEmpty { text += ", \(dv)% DV" }
            return text
        }
        let read = row.choice == "database" ? "as read" : describe(row.amount, row.unit, row.dailyValue)
        return """
            <fieldset class="scan-choice" id="\(id)-choice"><legend>The photo and the label database differ. Which matches your bottle?</legend>
            \(radio("read", "The photo: \(read)")) \(radio("database", "The label database: \(describe(amount, unit, dv))"))</fieldset>
            """
    }
}
