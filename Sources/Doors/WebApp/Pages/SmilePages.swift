import CairnApp
import CairnCore
import Foundation
import Smile

/// The Smile journal's pages: timeline, capture, crop (manual or checking the proposal), compare, export.
///
/// Routes (all behind the session cookie; POSTs need the CSRF token):
/// - `GET /smile` timeline; `GET /smile/add` capture page (webcam or file); `POST /smile/upload` (raw image body,
///   `X-CSRF-Token` header) holds the photo in memory and answers `{"next": "/smile/crop/ID"}`; the same address
///   takes a plain multipart form (field `photo`, token in the form, no script needed) and redirects to the crop
///   page, or shows the capture page again with the reason;
/// - `GET /smile/crop/ID` crop page; `POST /smile/crop/ID` (x, y, side, note) saves; `POST /smile/crop/ID/discard`;
/// - `GET /smile/photo/ENTRY` the stored crop; `GET /smile/compare?a=&b=` before/after slider;
/// - `GET /smile/export/ENTRY` shows exactly the file; `POST /smile/export/ENTRY` downloads it (attachment);
/// - `GET /smile/side-by-side?a=&b=` shows the picture of two crops side by side exactly as it will be downloaded
///   (`GET /smile/side-by-side.jpg?a=&b=`); `POST /smile/side-by-side` (`a`, `b`) downloads it (made anew, never stored);
/// - `GET /smile/delete/ENTRY` asks for confirmation; `POST /smile/delete/ENTRY` deletes the entry and its crop.
enum SmilePages {
    /// The page script (external: the CSP allows no inline scripts).
    static let script: HTML = "\n<script src=\"/assets/smile.js\" defer></script>"

    static func routes(_ smile: SmileService, csrfToken: String) -> [Route] {
        [
            route(.get, "/smile") { r in .html(timeline(try smile.entries(), added: r.query["added"], deleted: r.query["deleted"] == "1")) },
            route(.get, "/smile/add") { _ in .html(capture(csrfToken: csrfToken)) },
            route(.post, "/smile/upload") { r in try upload(r.request, smile: smile, csrfToken: csrfToken) },
            route(.get, "/smile/crop/{upload}") { r in
                .html(try crop(try smile.pendingUpload(r.parameter("upload")), smile: smile, csrfToken: csrfToken))
            },
            route(.post, "/smile/crop/{upload}") { r in
                try saveCrop(id: r.parameter("upload"), request: r.request, smile: smile, csrfToken: csrfToken)
            },
            route(.post, "/smile/crop/{upload}/discard") { r in
                smile.discardUpload(r.parameter("upload"))
                return .redirect(to: "/smile")
            },
            route(.get, "/smile/photo/{entry}") { r in
                let entry = try smile.entry(matching: r.parameter("entry", as: IdentifierPrefix.self))
                return Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: try smile.cropJPEG(entry))
            },
            route(.get, "/smile/compare") { r in
                .html(try compare(entries: try smile.entries(), a: r.query["a"], b: r.query["b"]))
            },
            route(.get, "/smile/export/{entry}") { r in
                .html(exportPage(try smile.export(try smile.entry(matching: r.parameter("entry", as: IdentifierPrefix.self))), csrfToken: csrfToken))
            },
            route(.post, "/smile/export/{entry}") { r in
                let export = try smile.export(try smile.entry(matching: r.parameter("entry", as: IdentifierPrefix.self)))
                guard export.containsNoMetadata else { throw SmileError.outputNotClean }
                return Response(
                    status: 200,
                    headers: [
                        ("Content-Type", "image/jpeg"),
                        ("Content-Disposition", "attachment; filename=\"\(export.suggestedFileName)\""),
                    ],
                    body: export.jpeg)
            },
            route(.get, "/smile/side-by-side") { r in
                let (a, b) = try pair(r.query, smile)
                return .html(sideBySidePage(a, b, jpeg: try smile.sideBySide(a, b), csrfToken: csrfToken))
            },
            route(.get, "/smile/side-by-side.jpg") { r in
                let (a, b) = try pair(r.query, smile)
                return Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: try smile.sideBySide(a, b))
            },
            route(.post, "/smile/side-by-side") { r in
                let (a, b) = try pair(r.form, smile)
                return Response(
                    status: 200,
                    headers: [
                        ("Content-Type", "image/jpeg"),
                        ("Content-Disposition", "attachment; filename=\"\(SmileExport.sideBySideFileName(a, b))\""),
                    ],
                    body: try smile.sideBySide(a, b))
            },
            route(.get, "/smile/delete/{entry}") { r in
                .html(confirmDelete(try smile.entry(matching: r.parameter("entry", as: IdentifierPrefix.self)), csrfToken: csrfToken))
            },
            route(.post, "/smile/delete/{entry}") { r in
                try smile.delete(try smile.entry(matching: r.parameter("entry", as: IdentifierPrefix.self)).id)
                return .redirect(to: "/smile?deleted=1")
            },
        ]
    }

    // MARK: timeline

    /// What an entry's date is: when the photo was taken, or (a photo without a date) when it was added; the
    /// timeline sorts by the same date.
    static func dateText(_ e: SmileEntry) -> String {
        e.captureDate == nil ? "Added " + e.displayDate.dropFirst("added ".count) + " (the photo had no date)" : "Taken " + e.displayDate
    }

    static func timeline(_ entries: [SmileEntry], added: String?, deleted: Bool = false) -> String {
        let intro: HTML = """
            <div class="page-intro">
            <h1>Smile</h1>
            <p class="lead">\(Journal.smile.purpose)</p>
            </div>
            """
        let addedNotice: HTML =
            added == nil
            ? "" : "<p class=\"notice\" role=\"status\" id=\"smile-added\">Saved. Only the square crop is kept; the photo itself was not stored.</p>"
        let deletedNotice: HTML =
            deleted ? "<p class=\"notice\" role=\"status\" id=\"smile-deleted\">Deleted. The crop and its note are no longer in Cairn.</p>" : ""
        let notice = addedNotice + deletedNotice
        guard !entries.isEmpty else {
            return Layout.page(
                title: "Smile", section: .smile,
                body: intro + notice + """
                    <section class="card empty-state" aria-labelledby="empty-title">
                    <h2 id="empty-title">Nothing here yet</h2>
                    <p>Add a photo of your smile, from your camera or from a file. Cairn finds your mouth, keeps a square crop of it, and lines your crops up so they are easy to compare.</p>
                    <p class="card-action"><a class="button" href="/smile/add" id="smile-add">Add a photo</a></p>
                    </section>
                    """)
        }
        let items = entries.reversed().map { e -> HTML in
            let note: HTML = e.note.isEmpty ? "" : "<p class=\"smile-note\">\(TextInput.displayed(e.note))</p>"
            return """
                <li class="card smile-entry">
                <img class="smile-crop" src="/smile/photo/\(e.id.rawValue)" width="\(SmileService.cropSide)" height="\(SmileService.cropSide)" alt="Smile crop, \(e.displayDate)">
                <p class="smile-date">\(dateText(e))</p>
                <p class="smile-meta">\(e.source.label.prefix(1).uppercased() + e.source.label.dropFirst())</p>
                \(note)
                <p class="smile-links"><a href="/smile/export/\(e.id.rawValue)">Export…</a> <a href="/smile/delete/\(e.id.rawValue)">Delete…</a></p>
                </li>
                """
        }
        let compareLink: HTML =
            entries.count >= 2
            ? "<a class=\"button button-quiet\" href=\"/smile/compare\" id=\"smile-compare-link\">Compare two</a>" : ""
        let body =
            intro + notice + """
                <div class="smile-actions"><a class="button" href="/smile/add" id="smile-add">Add a photo</a>\(compareLink)<a class="button button-quiet" href="/reports/smile" id="report-link">PDF progress sheet</a></div>
                <h2 class="visually-hidden">Your smile crops, newest first</h2>
                <p class="help" id="smile-order">Newest first, by the day each photo was taken (a photo without a date: the day it was added).</p>
                <ol class="smile-timeline" aria-label="Smile crops, newest first" aria-describedby="smile-order" reversed>
                \(HTML.join(items, separator: "\n"))
                </ol>
                """
        return Layout.page(title: "Smile", section: .smile, body: body)
    }

    // MARK: capture

    static func capture(csrfToken: String, error: String? = nil, phoneNotice: String? = nil) -> String {
        let problem: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"upload-error\">\($0)</p>" }
        // On the phone: what was just saved, and that the camera app may keep its own copy.
        let notice: HTML? = phoneNotice.map { "<p class=\"notice\" role=\"status\" id=\"smile-saved\">\($0)</p>" }
        let cameraApp: HTML? = PhoneRequest.current == nil ? nil : PhoneJournalPages.cameraAppCopy
        let captureAttribute: HTML = PhoneRequest.current == nil ? "" : " capture=\"user\""
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"upload-error\" autofocus"
        let body: HTML = """
            <div class="page-intro">
            <h1>Add a smile photo</h1>
            <p class="lead">Use your camera or choose a photo. Cairn finds your mouth and shows you the square it will keep. Nothing is saved until you confirm the crop.</p>
            </div>
            \(notice)
            <div class="smile-capture" id="smile-capture" data-csrf="\(csrfToken)">
            <section class="card" aria-labelledby="camera-title" id="smile-camera-card" hidden>
            <h2 id="camera-title">Camera</h2>
            <p class="help">Line your smile up inside the box. The camera picture stays in this browser until you take the photo.</p>
            <div class="smile-camera">
            <video id="smile-video" class="smile-video" autoplay playsinline muted></video>
            <div class="smile-guide" aria-hidden="true"></div>
            </div>
            <div class="form-actions">
            <button type="button" class="button button-quiet" id="smile-camera-start">Start camera</button>
            <button type="button" class="button" id="smile-camera-take" disabled>Take photo</button>
            </div>
            </section>
            <section class="card" aria-labelledby="file-title">
            <h2 id="file-title">Choose a photo</h2>
            <p class="help">JPEG, PNG, HEIC or WebP, up to 64 MB. The photo is held in memory only while you check the crop.</p>
            <form method="post" action="/smile/upload" enctype="multipart/form-data" class="stack" id="smile-file-form">\(Layout.csrfField(csrfToken))
            <label for="smile-file">Photo</label>
            <input type="file" id="smile-file" name="photo" accept="image/jpeg,image/png,image/heic,image/webp"\(captureAttribute) required\(invalid)>\(problem)
            \(cameraApp)
            <p class="field-error" role="alert" id="smile-file-error" hidden></p>
            <div class="form-actions"><button type="submit" class="button" id="smile-file-send">Send photo</button></div>
            </form>
            </section>
            <p class="notice" id="smile-status" role="status" hidden></p>
            <noscript><p class="notice">The camera needs JavaScript. To add a photo without it, choose the file and press Send photo (it goes only to this computer), or use <span class="kbd">cairn smile add</span>.</p></noscript>
            </div>
            """
        return Layout.page(title: "Add a smile photo", section: .smile, body: body + script)
    }

    /// `POST /smile/upload`: the body is the photo itself (the page's script; answers JSON), or a multipart
    /// form with the photo in field `photo` (no script; answers with a redirect or the capture page).
    static func upload(_ request: Request, smile: SmileService, csrfToken: String) throws -> Response {
        if request.formFields != nil {
            guard let data = request.formValue("photo"), !data.isEmpty else {
                return .html(capture(csrfToken: csrfToken, error: "No photo arrived. Choose a photo and try again."), status: 400)
            }
            do {
                return .redirect(to: "/smile/crop/\(try smile.holdUpload(data).id)")
            } catch let error as CairnError where error.errorKind == .refusedInput {
                return .html(capture(csrfToken: csrfToken, error: error.userMessage + " Nothing was stored."), status: 422)
            }
        }
        guard !request.body.isEmpty else { return .json(["error": "No photo arrived. Choose a photo and try again."], status: 400) }
        do {
            let upload = try smile.holdUpload(request.body)
            return .json(["next": "/smile/crop/\(upload.id)"])
        } catch let error as CairnError where error.errorKind == .refusedInput {
            return .json(["error": error.userMessage + " Nothing was stored."], status: 422)
        }
    }

    // MARK: crop

    static func crop(
        _ upload: SmilePendingUpload, smile: SmileService, csrfToken: String, error: String? = nil,
        square: CropSquare? = nil, note: String = ""
    ) throws -> String {
        let a = upload.analysis
        let preview = try smile.preview(of: a)
        let start = square ?? a.startingSquare
        // A confident proposal: check the crop; one the rule doubts: check the square (the message says why); none:
        // place it.
        let heading = a.proposedSquare == nil ? "Place the square" : a.proposalIsUncertain ? "Check the square" : "Check the crop"
        let candidates = a.candidates.enumerated().map { index, c -> HTML in
            """
            <button type="button" class="button button-quiet smile-candidate" data-x="\(c.square.x)" data-y="\(c.square.y)" data-side="\(c.square.side)">Face \(index + 1)\(index == 0 ? " (largest)" : "")</button>
            """
        }
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" id=\"crop-error\" role=\"alert\">\($0)</p>" }
        let candidateList: HTML? =
            a.candidates.count > 1 ? "<div class=\"smile-candidates\" aria-label=\"Faces found\">\(candidates)</div>" : nil
        let body: HTML = """
            <div class="page-intro">
            <h1>\(heading)</h1>
            <p class="lead" id="smile-message">\(a.message)</p>
            </div>
            \(errorHTML)
            <form method="post" action="/smile/crop/\(upload.id)" class="smile-crop-form">\(Layout.csrfField(csrfToken))
            <div class="smile-stage" id="smile-stage" data-width="\(a.sourceWidth)" data-height="\(a.sourceHeight)" data-min="\(SmileService.minimumSquareSide)">
            <img class="smile-preview" id="smile-preview" src="data:image/jpeg;base64,\(preview.jpeg.base64EncodedString())" width="\(preview.width)" height="\(preview.height)" alt="Your photo, with the square that will be kept">
            <div class="smile-square" id="smile-square" tabindex="0" role="group" aria-label="Crop square: drag it, or use the arrow keys; plus and minus change its size" aria-describedby="smile-square-status" hidden><span class="smile-handle" id="smile-handle"></span></div>
            </div>
            <p class="help smile-square-status" id="smile-square-status" aria-live="polite" hidden></p>
            \(candidateList)
            <fieldset class="smile-fields">
            <legend>Square, in the photo's pixels (\(a.sourceWidth) × \(a.sourceHeight))</legend>
            <div class="smile-field-row">
            <label>Left <input type="number" name="x" id="smile-x" min="0" max="\(a.sourceWidth)" value="\(start.x)" required></label>
            <label>Top <input type="number" name="y" id="smile-y" min="0" max="\(a.sourceHeight)" value="\(start.y)" required></label>
            <label>Side <input type="number" name="side" id="smile-side" min="\(SmileService.minimumSquareSide)" max="\(min(a.sourceWidth, a.sourceHeight))" value="\(start.side)" required></label>
            </div>
            </fieldset>
            <div class="stack">
            <label for="smile-note-field">Note (optional)</label>
            <input type="text" id="smile-note-field" name="note" maxlength="\(TextInput.maximumNoteLength)" value="\(note)">
            </div>
            <div class="form-actions">
            <button type="submit" class="button" id="smile-save">Save this crop</button>
            <button type="submit" class="button button-quiet" formaction="/smile/crop/\(upload.id)/discard" formnovalidate id="smile-discard">Discard</button>
            </div>
            <p class="help">Only the square is kept, as a \(SmileService.cropSide) × \(SmileService.cropSide) picture with no metadata. The photo itself is never stored.</p>
            </form>
            """
        return Layout.page(title: heading, section: .smile, body: body + script)
    }

    static func saveCrop(id: String, request: Request, smile: SmileService, csrfToken: String) throws -> Response {
        let form = request.form
        let upload = try smile.pendingUpload(id)
        let note = form["note"] ?? ""
        guard let x = form["x"].flatMap({ Int($0) }), let y = form["y"].flatMap({ Int($0) }),
            let side = form["side"].flatMap({ Int($0) }), x >= 0, y >= 0, side > 0
        else {
            return .html(
                try crop(upload, smile: smile, csrfToken: csrfToken, error: "Left, top and side must be whole numbers.", note: note), status: 400)
        }
        let square = CropSquare(x: x, y: y, side: side)
        do {
            let entry = try smile.confirmUpload(id, square: square, note: note)
            return .redirect(to: "/smile?added=\(entry.shortID)")
        } catch let error as SmileError where error != .uploadExpired {
            return .html(try crop(upload, smile: smile, csrfToken: csrfToken, error: error.userMessage, square: square, note: note), status: 400)
        } catch let error as TextInputError {
            return .html(try crop(upload, smile: smile, csrfToken: csrfToken, error: error.userMessage, square: square, note: note), status: 400)
        }
    }

    // MARK: compare

    static func compare(entries: [SmileEntry], a: String?, b: String?) throws -> String {
        guard entries.count >= 2 else {
            return Layout.page(
                title: "Compare", section: .smile,
                body: """
                    <section class="card empty-state"><h1>Compare two smiles</h1>
                    <p>Comparing needs at least two entries. Add another photo first.</p>
                    <p class="card-action"><a class="button" href="/smile/add">Add a photo</a></p></section>
                    """)
        }
        func pick(_ text: String?, default fallback: SmileEntry) -> SmileEntry {
            guard let text, !text.isEmpty else { return fallback }
            return entries.first { $0.id.rawValue == text } ?? fallback
        }
        let before = pick(a, default: entries.first!)
        let after = pick(b, default: entries.last!)
        // Two entries of one day read alike: each gets its place among that day's ("1 of 2"), in the list's order.
        let sameDay = Dictionary(grouping: entries, by: \.displayDate)
        func label(_ e: SmileEntry) -> String {
            guard let group = sameDay[e.displayDate], group.count > 1, let place = group.firstIndex(where: { $0.id == e.id }) else {
                return e.displayDate
            }
            return "\(e.displayDate), \(place + 1) of \(group.count)"
        }
        func options(selected: SmileEntry) -> [HTML] {
            entries.map { e -> HTML in
                let note = e.note.isEmpty ? "" : " · " + TextInput.displayed(String(e.note.prefix(40)))
                let chosen: HTML = e.id == selected.id ? " selected" : ""
                return "<option value=\"\(e.id.rawValue)\"\(chosen)>\(label(e))\(note)</option>"
            }
        }
        let body: HTML = """
            <div class="page-intro">
            <h1>Compare two smiles</h1>
            <p class="lead">Slide to move between the two crops. Both are the same size, so they line up.</p>
            </div>
            <form method="get" action="/smile/compare" class="smile-pickers card">
            <div class="stack"><label for="compare-a">Before</label><select id="compare-a" name="a">\(options(selected: before))</select></div>
            <div class="stack"><label for="compare-b">After</label><select id="compare-b" name="b">\(options(selected: after))</select></div>
            <button type="submit" class="button button-quiet" id="compare-show">Show</button>
            </form>
            <div class="smile-compare" id="smile-compare">
            <figure class="smile-frame smile-before"><img src="/smile/photo/\(before.id.rawValue)" width="\(SmileService.cropSide)" height="\(SmileService.cropSide)" alt="Before: \(label(before))"><figcaption>Before · \(label(before))</figcaption></figure>
            <figure class="smile-frame smile-after" id="smile-after"><img src="/smile/photo/\(after.id.rawValue)" width="\(SmileService.cropSide)" height="\(SmileService.cropSide)" alt="After: \(label(after))"><figcaption>After · \(label(after))</figcaption></figure>
            </div>
            <p class="regimen-toolbar"><a class="button button-quiet" href="/smile/side-by-side?a=\(before.id.rawValue)&amp;b=\(after.id.rawValue)" id="compare-export">Export these two side by side</a></p>
            <div class="smile-slider" id="smile-slider-row" hidden>
            <label for="smile-slider">Before ↔ after</label>
            <input type="range" id="smile-slider" min="0" max="100" value="50" aria-valuetext="\(sliderText(50, before: label(before), after: label(after)))" data-before="\(label(before))" data-after="\(label(after))">
            </div>
            """
        return Layout.page(title: "Compare", section: .smile, body: body + script)
    }

    /// What the before/after slider says at `value` (the after crop covers the part right of `value`%); smile.js
    /// says the same as it moves.
    static func sliderText(_ value: Int, before: String, after: String) -> String {
        value <= 0
            ? "After only (\(after))"
            : value >= 100
                ? "Before only (\(before))"
                : "Before (\(before)) on the left \(value)%, after (\(after)) on the right \(100 - value)%"
    }

    // MARK: export

    static func exportPage(_ export: SmileExport, csrfToken: String) -> String {
        let e = export.entry
        let check =
            export.containsNoMetadata
            ? "Contains no metadata (checked): no date, place or camera details, only the picture."
            : "This file did not pass the metadata check, so it cannot be exported."
        let body: HTML = """
            <section class="card smile-export" aria-labelledby="export-title">
            <h1 id="export-title">Export this crop?</h1>
            <p>This is exactly the file that will be saved to your downloads. Nothing else leaves Cairn.</p>
            <img class="smile-export-image" src="/smile/photo/\(e.id.rawValue)" width="\(e.photo.width)" height="\(e.photo.height)" alt="The crop that will be exported">
            <dl class="smile-facts">
            <dt>File</dt><dd id="export-name">\(export.suggestedFileName)</dd>
            <dt>Picture</dt><dd id="export-dimensions">\(e.photo.width) × \(e.photo.height) JPEG</dd>
            <dt>Size</dt><dd id="export-size">\(CountText.grouped(export.jpeg.count)) bytes (\(CountText.grouped((export.jpeg.count + 500) / 1000)) KB)</dd>
            <dt>Date</dt><dd>\(e.displayDate)</dd>
            </dl>
            <p class="consequence" id="export-check">\(check)</p>
            <form method="post" action="/smile/export/\(e.id.rawValue)">\(Layout.csrfField(csrfToken))
            <div class="form-actions">
            \(export.containsNoMetadata ? "<button type=\"submit\" class=\"button\" id=\"export-confirm\">Download this file</button>" as HTML : nil)
            <a class="button button-quiet" href="/smile">Cancel</a>
            </div>
            </form>
            </section>
            """
        return Layout.page(title: "Export", section: .smile, body: body)
    }

    // MARK: side by side

    /// The two entries a side-by-side names (`a` left, `b` right); a missing or unknown one answers 404.
    static func pair(_ fields: [String: String], _ smile: SmileService) throws -> (SmileEntry, SmileEntry) {
        func entry(_ name: String) throws -> SmileEntry {
            do {
                guard let prefix = try fields.value(name, as: IdentifierPrefix.self) else { throw WebError.notFound }
                return try smile.entry(matching: prefix)
            } catch is any CairnError { throw WebError.notFound }
        }
        return (try entry("a"), try entry("b"))
    }

    /// The side-by-side picture exactly as it will be downloaded, its facts, and the download button.
    static func sideBySidePage(_ a: SmileEntry, _ b: SmileEntry, jpeg: Data, csrfToken: String) -> String {
        let width = 2 * SmileService.cropSide + SmileService.sideBySideGap
        let query = "a=\(a.id.rawValue)&b=\(b.id.rawValue)"
        let body: HTML = """
            <section class="card smile-export" aria-labelledby="export-title">
            <h1 id="export-title">Export these two side by side?</h1>
            <p>This is exactly the picture that will be saved to your downloads: the two crops and nothing else. It is made now and not kept in Cairn.</p>
            <img class="smile-export-image" src="/smile/side-by-side.jpg?\(query)" width="\(width)" height="\(SmileService.cropSide)" alt="Left: \(a.displayDate); right: \(b.displayDate)">
            <dl class="smile-facts">
            <dt>File</dt><dd id="export-name">\(SmileExport.sideBySideFileName(a, b))</dd>
            <dt>Picture</dt><dd id="export-dimensions">\(width) × \(SmileService.cropSide) JPEG</dd>
            <dt>Size</dt><dd id="export-size">\(CountText.grouped(jpeg.count)) bytes (\(CountText.grouped((jpeg.count + 500) / 1000)) KB)</dd>
            <dt>Left</dt><dd>\(a.displayDate)</dd><dt>Right</dt><dd>\(b.displayDate)</dd>
            </dl>
            <p class="consequence" id="export-check">Contains no metadata (checked): no date, place or camera details, only the picture.</p>
            <form method="post" action="/smile/side-by-side">\(Layout.csrfField(csrfToken))
            <input type="hidden" name="a" value="\(a.id.rawValue)"><input type="hidden" name="b" value="\(b.id.rawValue)">
            <div class="form-actions">
            <button type="submit" class="button" id="export-confirm">Download this file</button>
            <a class="button button-quiet" href="/smile/compare?\(query)">Cancel</a>
            </div>
            </form>
            </section>
            """
        return Layout.page(title: "Export side by side", section: .smile, body: body)
    }

    // MARK: delete

    static func confirmDelete(_ e: SmileEntry, csrfToken: String) -> String {
        let body: HTML = """
            <section class="card smile-delete" aria-labelledby="delete-title">
            <h1 id="delete-title">Delete this entry?</h1>
            <img class="smile-export-image" src="/smile/photo/\(e.id.rawValue)" width="\(e.photo.width)" height="\(e.photo.height)" alt="The crop that will be deleted">
            <p class="consequence" id="delete-consequence">The crop of \(e.displayDate) and its note are removed from Cairn. This cannot be undone.</p>
            <form method="post" action="/smile/delete/\(e.id.rawValue)">\(Layout.csrfField(csrfToken))
            <div class="form-actions">
            <button type="submit" class="button button-danger" id="smile-delete-confirm">Delete</button>
            <a class="button button-quiet" href="/smile">Keep it</a>
            </div>
            </form>
            </section>
            """
        return Layout.page(title: "Delete entry", section: .smile, body: body)
    }
}
