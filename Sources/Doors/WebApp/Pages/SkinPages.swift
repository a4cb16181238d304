import CairnApp
import CairnCore
import Foundation
import Skin

/// The Skin journal's pages: areas, an area's timeline, compare, trend, and the delete confirmations.
/// Wording is about how much photos differ and when, never which way.
enum SkinPages {
    static func areaPath(_ id: AreaID) -> String { "/skin/areas/\(id.rawValue)" }
    static func entryPath(_ e: TrackingEntry) -> String { "\(areaPath(e.areaID))/entries/\(e.id.rawValue)" }

    /// "30 Nov 2026" (or "30 Nov 2026, 08:05"), in the entry's own time zone.
    static func date(_ entry: TrackingEntry, time: Bool = false) -> String {
        DateText.string(entry.capturedAt, time ? .dayAndTime : .day, inZoneNamed: entry.timeZone)
    }

    static func percent(_ value: Double) -> String { "\(Int(value.rounded()))%" }

    static func disclaimer(_ d: Disclaimer) -> HTML {
        "<p class=\"disclaimer\">\(d.text)</p>"
    }

    /// The photo file input with its error right below it, tied to it for assistive technology.
    static func photoField(label: String, required: Bool, error: String?) -> HTML {
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"upload-error\">\($0)</p>" }
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"upload-error\" autofocus"
        return """
            <label for="photo">\(label)</label>
            <input type="file" id="photo" name="photo" accept="image/jpeg,image/png,image/heic,image/webp"\(required ? " required" : "")\(invalid)>\(errorHTML)
            """
    }

    /// What the overlay slider says at `value` (0 = the first photo only, 100 = the selected photo only);
    /// skin.js says the same as it moves.
    static func overlayText(_ value: Int) -> String {
        value <= 0 ? "First photo only" : value >= 100 ? "Selected photo only" : "Selected photo \(value)% over the first photo"
    }

    // MARK: home

    static func home(_ areas: [SkinAreaSummary], csrfToken: String, error: String? = nil) -> String {
        let cards = HTML.join(
            areas.map { a -> HTML in
                let count = "\(a.entryCount) photo\(a.entryCount == 1 ? "" : "s")"
                let latest = a.latestCapture.map { ", latest \(DateText.string($0, .day, in: .current))" } ?? ""
                let location: HTML? = a.area.bodyLocation.map { "<p class=\"help\">\($0)</p>" }
                // The newest photo's thumbnail; decorative (the heading names the area, the text says when).
                let thumb: HTML =
                    a.latestEntry.map {
                        "<img class=\"skin-area-thumb\" src=\"\(areaPath(a.area.id))/entries/\($0.rawValue)/thumbnail.jpg\" alt=\"\" loading=\"lazy\" width=\"160\" height=\"120\">"
                    } ?? "<div class=\"skin-area-thumb skin-area-thumb-empty\" aria-hidden=\"true\"></div>"
                return """
                    <li class="card skin-area-card">\(thumb)<h2><a href="\(areaPath(a.area.id))">\(a.area.name)</a></h2>\
                    \(location)<p>\(count)\(latest)</p></li>
                    """
            }, separator: "\n")
        let list: HTML =
            areas.isEmpty
            ? "<section class=\"card empty-state\"><h2>No areas yet</h2><p>Add the first patch of skin you want to photograph over time.</p></section>"
            : "<ul class=\"skin-area-grid\" aria-label=\"Areas\">\(cards)</ul>"
        // The refusals of "Add area" are about its name: the error sits below the name field.
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"area-name-error\">\($0)</p>" }
        let nameInvalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"area-name-error\" autofocus"
        let body: HTML = """
            <div class="page-intro"><h1>Skin</h1>
            <p class="lead">\(Journal.skin.purpose)</p></div>
            \(list)
            <section class="card skin-add" aria-labelledby="add-title">
            <h2 id="add-title">Add an area</h2>
            <form method="post" action="/skin/areas" class="stack">\(Layout.csrfField(csrfToken))
            <label for="area-name">Name</label>
            <input type="text" id="area-name" name="name" required maxlength="\(TextInput.maximumNameLength)"\(nameInvalid)>\(errorHTML)
            <label for="area-location">Where on the body (optional)</label>
            <input type="text" id="area-location" name="location" maxlength="\(TextInput.maximumNameLength)">
            <label for="area-guidance">How to take its photos (optional)</label>
            <p class="help" id="guidance-help">For example: arm flat on the desk, daylight from the window, phone a hand's width away.</p>
            <textarea id="area-guidance" name="guidance" rows="2" aria-describedby="guidance-help"></textarea>
            <div class="form-actions"><button type="submit" class="button" id="add-area">Add area</button></div>
            </form>
            </section>
            """
        return Layout.page(title: "Skin", section: .skin, body: body)
    }

    // MARK: timeline

    static func timeline(
        _ t: SkinTimeline, details: Bool, csrfToken: String, notice: String? = nil,
        uploadError: String? = nil, renameError: (typed: String, message: String)? = nil
    ) -> String {
        // A refused rename shows what was typed, with the refusal below the field.
        let renameValue = renameError?.typed ?? t.area.name
        let renameInvalid: HTML = renameError == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"rename-error\" autofocus"
        let renameErrorHTML: HTML? = renameError.map { "<p class=\"field-error\" role=\"alert\" id=\"rename-error\">\($0.message)</p>" }
        var items: HTML = ""
        for item in t.items {
            let e = item.entry
            var figure: HTML
            if item.isBaseline {
                figure = "<span class=\"skin-figure skin-first\">First photo</span>"
            } else if let c = item.comparison {
                if let s = c.similarityPercent {
                    figure =
                        "<span class=\"skin-figure\">Visual similarity <strong>\(percent(s))</strong> · \(SimilarityBand(similarityPercent: s).label)</span>"
                } else {
                    figure = "<span class=\"skin-figure skin-not-comparable\">Not comparable</span>"
                }
                if details { figure += "<span class=\"skin-raw\">Raw score \(String(format: "%.3f", c.rawScore))</span>" }
            } else {
                figure = "<span class=\"skin-figure\">Not compared yet</span>"
            }
            let date = date(e)
            let note: HTML = e.note.isEmpty ? "" : "<span class=\"skin-entry-note\">\(TextInput.displayed(e.note))</span>"
            items += """
                <li class="skin-entry"><a href="\(entryPath(e))"><img src="\(entryPath(e))/thumbnail.jpg" alt="Photo of \(date)" loading="lazy" width="160" height="120">\
                <span class="skin-date">\(date)</span></a>\(figure)\(note)</li>
                """
        }
        let noticeHTML: HTML? = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" }
        let location: HTML? = t.area.bodyLocation.map { "<p class=\"help\">\($0)</p>" }
        let guidance: HTML =
            t.area.guidance.isEmpty
            ? "" : "<p class=\"skin-guidance\"><strong>How to take these photos:</strong> \(TextInput.displayed(t.area.guidance))</p>"
        let list: HTML =
            t.items.isEmpty
            ? "<p class=\"empty-note\">No photos yet.</p><p>Add the first photo below. Later photos are compared with it.</p>"
            : "<ol class=\"skin-timeline\" aria-label=\"Photos, oldest first\">\(items)</ol>\(disclaimer(.similarity))"
        let trendLink: HTML =
            "<a class=\"button\" href=\"\(areaPath(t.area.id))/capture\" id=\"capture-link\">Take a photo</a>"
            + (t.items.count > 1 ? "<a class=\"button button-quiet\" href=\"\(areaPath(t.area.id))/trend\" id=\"trend-link\">Trend</a>" : "")
            + "<a class=\"button button-quiet\" href=\"/reports/skin/\(t.area.id.rawValue)\" id=\"report-link\">PDF photo log</a>"
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/skin">Skin</a></p><h1>\(t.area.name)</h1>\(location)\(guidance)</div>
            \(noticeHTML)
            <div class="skin-toolbar">\(trendLink)</div>
            \(list)
            <section class="card skin-upload" aria-labelledby="upload-title">
            <h2 id="upload-title">Add a photo</h2>
            <form method="post" action="\(areaPath(t.area.id))/photos" enctype="multipart/form-data" class="stack" id="skin-upload" data-csrf="\(csrfToken)">\(Layout.csrfField(csrfToken))
            \(photoField(label: "Photo", required: true, error: uploadError))
            <div class="form-actions"><button type="submit" class="button" id="upload">Add photo</button></div>
            </form>
            </section>
            <section class="card skin-manage" aria-labelledby="manage-title">
            <h2 id="manage-title">This area</h2>
            <form method="post" action="\(areaPath(t.area.id))/rename" class="setting-row">\(Layout.csrfField(csrfToken))
            <label for="rename">Name</label><input type="text" id="rename" name="name" value="\(renameValue)" required maxlength="\(TextInput.maximumNameLength)"\(renameInvalid)>
            <button type="submit" class="button button-quiet">Rename</button></form>\(renameErrorHTML)
            <p class="card-action"><a class="button button-quiet" href="\(areaPath(t.area.id))/delete">Delete this area…</a></p>
            </section>
            <script src="/assets/skin.js" defer></script>
            """
        return Layout.page(title: t.area.name, section: .skin, body: body)
    }

    // MARK: compare

    /// The compare page; `added` (right after a photo was logged) makes it the photo's one screen: "Photo added",
    /// the figure with its disclaimer, and the optional note step, focused.
    static func compare(_ v: SkinComparisonView, details: Bool, notice: String? = nil, added: Bool = false, csrfToken: String = "") -> String {
        let baseDate = date(v.baseline, time: true)
        let entryDate = date(v.entry, time: true)
        let base = "\(entryPath(v.baseline))/photo.jpg"
        let probe = "\(entryPath(v.entry))/photo.jpg"
        var figure: HTML = ""
        var heat: HTML = ""
        if v.isBaseline {
            figure = "<p class=\"skin-verdict\">This is the first photo of this area. Every later photo is compared with it.</p>"
        } else if let c = v.comparison {
            if let s = c.similarityPercent {
                figure = """
                    <p class="skin-verdict"><span class="skin-big" id="similarity">\(percent(s))</span> <span>visual similarity to the first photo</span></p>
                    \(band(s))
                    \(disclaimer(.similarity))
                    \(coverage(v, hatched: true))
                    """
                heat = """
                    <input type="checkbox" id="heat-toggle" class="skin-heat-toggle"><label for="heat-toggle" class="skin-heat-label">Show where the photos differ</label>
                    """
            } else {
                figure =
                    "<p class=\"skin-verdict\" id=\"not-comparable\"><strong>Not comparable.</strong> \((c.reasonNotComparable ?? .alignmentFailed).userMessage) No figure is given.</p>"
            }
            if details { figure += detailsHTML(c, v.details) }
        } else {
            figure = "<p class=\"skin-verdict\">This photo has not been compared yet.</p>"
        }
        let heatImage: HTML = heat.isEmpty ? "" : "<img class=\"skin-heatmap\" src=\"\(entryPath(v.entry))/change-map.jpg\" alt=\"\">"
        // What was not compared, hatched on both photos (the map is in the first photo's frame; the selected photo was
        // lined up on it).
        let leftOut: HTML =
            !heat.isEmpty && v.details?.diagnostics.notComparedMessage != nil
            ? "<img class=\"skin-notcompared\" src=\"\(entryPath(v.entry))/not-compared.jpg\" alt=\"\">" : ""
        let noteLink: HTML = "<a href=\"\(entryPath(v.entry))/note\" id=\"edit-note\">\(v.entry.note.isEmpty ? "Add a note" : "Edit the note")</a>"
        let note: HTML =
            added && v.entry.note.isEmpty
            ? "<section class=\"card skin-note-step\" aria-labelledby=\"note-label\">\(noteForm(v.entry, isNew: true, csrfToken: csrfToken))</section>"
            : v.entry.note.isEmpty
                ? "<p class=\"skin-note\" id=\"note\">No note. \(noteLink)</p>"
                : "<p class=\"skin-note\" id=\"note\"><span class=\"skin-note-text\">Note: \(TextInput.displayed(v.entry.note))</span> \(noteLink)</p>"
        let noticeHTML: HTML? = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" }
        let views: HTML =
            v.isBaseline
            ? """
            <figure class="skin-photo"><img src="\(base)" alt="First photo, \(baseDate)"><figcaption>\(baseDate)</figcaption></figure>
            """
            : """
            \(heat)
            <div class="skin-compare">
            <figure class="skin-photo"><div class="skin-stack"><img src="\(base)" alt="First photo, \(baseDate)">\(leftOut)\(heatImage)</div><figcaption>First photo · \(baseDate)</figcaption></figure>
            <figure class="skin-photo"><div class="skin-stack"><img src="\(probe)" alt="Selected photo, \(entryDate)">\(leftOut)\(heatImage)</div><figcaption>Selected · \(entryDate)</figcaption></figure>
            </div>
            <section class="card skin-overlay-card" aria-labelledby="overlay-title">
            <h2 id="overlay-title">Overlay</h2>
            <div class="skin-overlay"><img src="\(base)" alt=""><img src="\(probe)" alt="" class="skin-overlay-top" id="overlay-top"></div>
            <label for="overlay-slider">First photo ⟷ selected photo</label>
            <input type="range" id="overlay-slider" min="0" max="100" value="50" class="skin-slider" aria-valuetext="\(overlayText(50))">
            </section>
            """
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/skin">Skin</a> › <a href="\(areaPath(v.area.id))">\(v.area.name)</a></p>
            <h1>\(added ? "Photo added" : "Compare")</h1>\(added && v.entry.note.isEmpty ? "<p class=\"lead\">\(noteInvitation)</p>" as HTML : nil)</div>
            \(noticeHTML)
            \(figure)
            \(added ? note : "")
            \(views)
            \(added ? "" : note)
            <p class="card-action"><a class="button button-quiet" href="\(areaPath(v.area.id))">Back to the photos</a> \
            <a class="button button-quiet" href="\(entryPath(v.entry))/delete">Delete this photo…</a></p>
            <script src="/assets/skin.js" defer></script>
            """
        return Layout.page(title: added ? "Photo added" : "Compare", section: .skin, body: body)
    }

    /// What the figure covers, beside every figure: the sentence (`SkinComparator.comparedRegionSentence`), how much of the
    /// first photo was left out and why, and whether colour was compared on part of it only. `hatched`: the page shows
    /// the left-out part on the photos.
    /// The figure's band in plain words (`SimilarityBand`), beside every figure.
    static func band(_ similarity: Double) -> HTML {
        "<p class=\"skin-band\" id=\"similarity-band\">\(SimilarityBand(similarityPercent: similarity).sentence)</p>"
    }

    static func coverage(_ v: SkinComparisonView, hatched: Bool) -> HTML {
        var html: HTML = "<p class=\"skin-region\" id=\"compared-region\">\(SkinComparator.comparedRegionSentence)</p>"
        if let left = v.details?.diagnostics.notComparedMessage {
            html += "<p class=\"skin-partial\" id=\"not-compared\">\(left)\(hatched ? " It is hatched on the photos below." : "")</p>"
        }
        if let partial = v.details?.diagnostics.partialColourMessage {
            html += "<p class=\"skin-partial\" id=\"partial-colour\">\(partial)</p>"
        }
        return html
    }

    static func detailsHTML(_ c: StoredComparison, _ d: ComparisonDetails?) -> HTML {
        var rows: HTML = "<dt>Raw score</dt><dd id=\"raw-score\">\(String(format: "%.3f", c.rawScore)) (higher means more different)</dd>"
        rows += "<dt>Method</dt><dd>\(c.revision.description)</dd>"
        if let d {
            rows +=
                "<dt>Alignment</dt><dd>\(d.alignment.method.rawValue), \(d.alignment.keypointInliers) of \(d.alignment.keypointMatches) matches, correlation \(String(format: "%.2f", d.alignment.correlation))</dd>"
            rows +=
                "<dt>Scale, rotation</dt><dd>\(String(format: "%.3f", d.alignment.scale)), \(String(format: "%.1f", d.alignment.rotationDegrees))°</dd>"
            rows += "<dt>Perspective</dt><dd>\(d.alignment.perspectiveMessage ?? "None followed")</dd>"
            rows += "<dt>Median change</dt><dd>\(String(format: "%.3f", d.diagnostics.medianChange))</dd>"
            rows += "<dt>Colour distance</dt><dd>\(String(format: "%.3f", d.diagnostics.histogramDistance))</dd>"
        }
        return
            "<section class=\"card skin-details\" aria-labelledby=\"details-title\"><h2 id=\"details-title\">Comparison details</h2><dl>\(rows)</dl></section>"
    }

    // MARK: trend

    /// The chart is an image (role=img, no links inside: the strip below links every photo); its labels are
    /// HTML around it, so they keep the page's type size at any width instead of shrinking with the drawing,
    /// which stretches to the frame (strokes keep their width, dots stay round).
    static func trend(_ t: SkinTimeline) -> String {
        let w = 760.0
        let h = 260.0
        let left = 8.0
        let right = 8.0
        let top = 8.0
        let bottom = 8.0
        let times = t.items.map(\.entry.capturedAt.timeIntervalSince1970)
        let t0 = times.min() ?? 0
        let t1 = max(times.max() ?? 1, t0 + 1)
        func x(_ time: Double) -> Double { left + (time - t0) / (t1 - t0) * (w - left - right) }
        func y(_ m: Double) -> Double { top + min(max(m, 0), 1) * (h - top - bottom) }
        var points: HTML = ""
        var path = ""
        var strip: HTML = ""
        var notComparable = 0
        // The chart's figures as a table too: what a screen reader (or anyone) reads instead of the drawing.
        var rows: [HTML] = []
        for item in t.items {
            let e = item.entry
            let date = date(e)
            let magnitude = item.isBaseline ? 0 : item.comparison?.magnitude
            let anchor = "p-\(e.id.rawValue)"
            if let m = magnitude {
                let px = String(format: "%.1f", x(e.capturedAt.timeIntervalSince1970))
                let py = String(format: "%.1f", y(m))
                path += (path.isEmpty ? "M" : "L") + "\(px) \(py) "
                // A dot is a zero-length stroke with round caps: it stays round however the chart is stretched.
                points += "<path d=\"M\(px) \(py)h0\" class=\"skin-point\"><title>\(date)</title></path>"
            } else {
                notComparable += 1
            }
            let figure: String
            if item.isBaseline {
                figure = "First photo"
            } else if let s = item.comparison?.similarityPercent {
                // How much, in the band's words: the trend page gives no percentages (the photo's page does).
                figure = SimilarityBand(similarityPercent: s).label.prefix(1).uppercased() + SimilarityBand(similarityPercent: s).label.dropFirst()
            } else {
                figure = "Not comparable"
            }
            rows.append("<tr><td>\(date)</td><td>\(figure)</td></tr>")
            let tag: HTML = magnitude == nil ? "<span class=\"skin-figure skin-not-comparable\">Not comparable</span>" : ""
            strip += """
                <li id="\(anchor)"><a href="\(entryPath(e))"><img src="\(entryPath(e))/thumbnail.jpg" alt="Photo of \(date)" loading="lazy" width="96" height="72">\
                <span class="skin-date">\(date)</span></a>\(tag)</li>
                """
        }
        let axis: HTML = """
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(h - bottom)" class="skin-axis"/>\
            <line x1="\(left)" y1="\(h - bottom)" x2="\(w - right)" y2="\(h - bottom)" class="skin-axis"/>
            """
        let firstDate = t.items.first.map { date($0.entry) } ?? ""
        let lastDate = t.items.last.map { date($0.entry) } ?? ""
        let missing: HTML =
            notComparable == 0
            ? "" : "<p class=\"help\">\(notComparable) photo\(notComparable == 1 ? " is" : "s are") not comparable and not on the chart.</p>"
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/skin">Skin</a> › <a href="\(areaPath(t.area.id))">\(t.area.name)</a></p>
            <h1>Trend</h1><p class="lead">How much each photo differs from the first one, over time.</p></div>
            <section class="card skin-trend">
            <div class="skin-chart-frame">
            <p class="skin-chart-y" aria-hidden="true"><span class="skin-axis-label">Similar</span><span class="skin-axis-label">Different</span></p>
            <svg viewBox="0 0 \(Int(w)) \(Int(h))" preserveAspectRatio="none" class="skin-chart" role="img" aria-label="How much each photo differs from the first one, from \(firstDate) to \(lastDate): the higher a point, the more similar the photo is to the first one">\
            \(axis)<path d="\(path)" class="skin-line"/>\(points)</svg>
            <p class="skin-chart-x" aria-hidden="true"><span class="skin-axis-label">\(firstDate)</span><span class="skin-axis-label">\(lastDate)</span></p>
            </div>
            \(disclaimer(.trend))
            \(missing)
            <details class="skin-trend-values"><summary>The figures on the chart</summary>
            \(disclaimer(.similarity))
            <table class="regimen-ledger"><caption class="visually-hidden">How much each photo differs from the first one</caption>
            <thead><tr><th scope="col">Photo of</th><th scope="col">How much it differs from the first photo</th></tr></thead>
            <tbody>\(HTML.join(rows, separator: ""))</tbody></table>
            </details>
            </section>
            <h2>The photos on the chart</h2>
            <ol class="skin-strip" aria-label="Photos, oldest first">\(strip)</ol>
            """
        return Layout.page(title: "Trend", section: .skin, body: body)
    }

    // MARK: guided capture

    /// The camera page: live view with the last photo as a ghost, a dashed box around the central 60%, live
    /// light, focus and steadiness badges from the Swift analyzer (shown once the camera runs), a shutter that is
    /// never blocked, and a file picker. The note step follows the shutter or the upload.
    static func capture(_ t: SkinTimeline, csrfToken: String, uploadError: String? = nil) -> String {
        let ghost: HTML? = t.items.last.map { "<img class=\"skin-ghost\" id=\"ghost\" src=\"\(entryPath($0.entry))/photo.jpg\" alt=\"\">" }
        let ghostControl: HTML =
            ghost == nil
            ? ""
            : """
            <div class="stack" id="ghost-control" hidden><label for="ghost-opacity">Last photo as a guide</label>
            <input type="range" id="ghost-opacity" min="0" max="80" value="35" class="skin-slider" aria-valuetext="Last photo 35% visible"></div>
            """
        let guidance: HTML =
            t.area.guidance.isEmpty
            ? "" : "<p class=\"skin-guidance\"><strong>How to take these photos:</strong> \(TextInput.displayed(t.area.guidance))</p>"
        let base = areaPath(t.area.id)
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/skin">Skin</a> › <a href="\(base)">\(t.area.name)</a></p>
            <h1>Take a photo</h1>\(guidance)</div>
            <section class="card skin-capture" id="skin-capture" data-quality="\(base)/quality" data-upload="\(base)/photos" data-csrf="\(csrfToken)">
            <div class="skin-viewfinder" id="viewfinder" hidden>
            <video id="camera" autoplay playsinline muted></video>\(ghost)<div class="skin-frame" aria-hidden="true"></div>
            </div>
            <p class="skin-badges" id="badges" aria-live="polite" hidden><span class="skin-badge" id="badge-light">Light: waiting for the camera</span> \
            <span class="skin-badge" id="badge-focus">Focus: waiting for the camera</span> <span class="skin-badge" id="badge-steady">Steadiness: waiting for the camera</span></p>
            <p class="help" id="camera-status">If there is no camera, or you prefer a photo you already have, choose a file below.</p>
            \(ghostControl)
            <form method="post" action="\(base)/photos" enctype="multipart/form-data" class="stack" id="skin-upload" data-csrf="\(csrfToken)">\(Layout.csrfField(csrfToken))\
            <input type="hidden" name="from" value="capture">
            \(photoField(label: "Photo file", required: false, error: uploadError))
            <div class="form-actions"><button type="button" class="button" id="shutter" hidden>Take photo</button>
            <button type="submit" class="button button-quiet" id="upload">Add chosen file</button></div>
            </form>
            </section>
            <script src="/assets/skin.js" defer></script>
            """
        return Layout.page(title: "Take a photo", section: .skin, body: body)
    }

    // MARK: note

    /// The note step, right after the shutter or an upload (`isNew`), and the same form to change a note later.
    /// A plain form: it works without JavaScript. Earlier versions stay listed below (notes are append-only).
    static func note(
        area: TrackingArea, entry: TrackingEntry, history: [SkinNoteVersion], isNew: Bool, csrfToken: String,
        typed: String? = nil, error: String? = nil
    ) -> String {
        let date = date(entry, time: true)
        let earlier = history.dropLast().reversed().map { v -> HTML in
            let when = DateText.string(v.recordedAt, .dayAndTime, inZoneNamed: entry.timeZone)
            let text: HTML = v.text.isEmpty ? "<em>Note removed</em>" : "\(v.text)"
            return "<li><span class=\"skin-note-when\">\(when)</span> \(text)</li>"
        }
        let historyHTML: HTML =
            earlier.isEmpty
            ? ""
            : """
            <section class="card skin-note-history" aria-labelledby="history-title"><h2 id="history-title">Earlier notes</h2>
            <p class="help">A new note takes the place of the one before; the earlier ones stay recorded here.</p>
            <ul id="note-history" aria-label="Earlier notes, newest first">\(earlier)</ul></section>
            """
        let heading = isNew ? "Photo added" : (entry.note.isEmpty ? "Add a note" : "Edit the note")
        let intro: HTML = isNew ? "<p class=\"lead\">\(noteInvitation)</p>" : ""
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/skin">Skin</a> › <a href="\(areaPath(area.id))">\(area.name)</a></p>
            <h1>\(heading)</h1>\(intro)</div>
            <section class="card skin-note-step" aria-labelledby="note-label">
            <img class="skin-note-thumb" src="\(entryPath(entry))/thumbnail.jpg" alt="The photo of \(date)" width="160" height="120">
            \(noteForm(entry, isNew: isNew, csrfToken: csrfToken, typed: typed, error: error, leave: (isNew ? "Skip" : "Cancel")))
            </section>
            \(historyHTML)
            """
        return Layout.page(title: heading, section: .skin, body: body)
    }

    static let noteInvitation = "Add a note if you like: the light, a new cream, anything you want to remember about this photo."

    /// The note form (a plain form: it works without JavaScript), on the note page and as the note step of the
    /// compare page right after a photo is added (`isNew`: optional, focused). `leave` is the link back to the
    /// compare page, if any.
    static func noteForm(
        _ entry: TrackingEntry, isNew: Bool, csrfToken: String, typed: String? = nil, error: String? = nil, leave: String? = nil
    ) -> HTML {
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"note-error\">\($0)</p>" }
        let described = "note-help" + (error == nil ? "" : " note-error")
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\""
        let leaveHTML: HTML? = leave.map { "\n<a class=\"button button-quiet\" href=\"\(entryPath(entry))\" id=\"skip-note\">\($0)</a>" }
        let newField: HTML = isNew ? "<input type=\"hidden\" name=\"new\" value=\"1\">" : ""
        return """
            <form method="post" action="\(entryPath(entry))/note" class="stack" id="note-form">\(Layout.csrfField(csrfToken))\
            \(newField)
            <label for="note" id="note-label">Note\(isNew ? " (optional)" : "")</label>
            <p class="help" id="note-help">Up to \(TextInput.maximumNoteLength) characters.\(isNew || entry.note.isEmpty ? "" : " Leave it empty to remove the note.")</p>
            <textarea id="note" name="note" rows="3" maxlength="\(TextInput.maximumNoteLength)" aria-describedby="\(described)"\(invalid)\(isNew ? " autofocus" : "")>\(typed ?? entry.note)</textarea>\(errorHTML)
            <div class="form-actions"><button type="submit" class="button" id="save-note">Save note</button>\(leaveHTML)</div>
            </form>
            """
    }

    // MARK: confirmations

    static func confirmDeleteEntry(_ v: SkinComparisonView, consequence: SkinDeletionConsequence, csrfToken: String) -> String {
        let body: HTML = """
            <section class="card confirm" aria-labelledby="confirm-title">
            <h1 id="confirm-title">Delete this photo?</h1>
            <img class="skin-confirm-thumb" src="\(entryPath(v.entry))/thumbnail.jpg" alt="The photo to delete">
            <p class="consequence" id="consequence"><strong>\(consequence.message)</strong></p>
            <form method="post" action="\(entryPath(v.entry))/delete">\(Layout.csrfField(csrfToken))
            <div class="form-actions"><button type="submit" class="button button-danger" id="delete-entry">Delete photo</button>
            <a class="button button-quiet" href="\(entryPath(v.entry))">Cancel</a></div>
            </form>
            </section>
            """
        return Layout.page(title: "Delete this photo?", section: .skin, body: body)
    }

    static func confirmDeleteArea(_ t: SkinTimeline, csrfToken: String) -> String {
        let n = t.items.count
        let body: HTML = """
            <section class="card confirm" aria-labelledby="confirm-title">
            <h1 id="confirm-title">Delete this area?</h1>
            <p class="consequence"><strong>The area and its \(n) photo\(n == 1 ? "" : "s") will be removed. This cannot be undone.</strong></p>
            <form method="post" action="\(areaPath(t.area.id))/delete">\(Layout.csrfField(csrfToken))
            <div class="form-actions"><button type="submit" class="button button-danger" id="delete-area">Delete area</button>
            <a class="button button-quiet" href="\(areaPath(t.area.id))">Cancel</a></div>
            </form>
            </section>
            """
        return Layout.page(title: "Delete this area?", section: .skin, body: body)
    }
}
