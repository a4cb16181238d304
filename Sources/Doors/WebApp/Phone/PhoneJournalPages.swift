import CairnApp
import CairnCore
import Foundation
import Regimen
import Skin
import Synchronization

/// What a paired phone can do, through the same services and the same verified photo pipeline as the computer:
/// a Skin photo with the guided capture, a Smile photo with its crop check, a label photo sent to the computer's
/// review, and Today. Nothing else: no settings, exports, backups, reports, deletion, and no history beyond the
/// chosen area's ghost photo (a photo's result page opens only for a photo this phone session took).
enum PhoneJournalPages {
    static func routes(_ sessions: PhoneSessions) -> [Route] {
        @Sendable func services() throws -> WebServices {
            guard let services = sessions.servicesInUse else { throw PhoneSessionError.vaultLocked }
            return services
        }
        /// The Skin photos this session took: their result pages are the only ones the phone may open.
        let takenHere = Mutex<Set<String>>([])
        @Sendable func takenEntry(_ r: RouteRequest) throws -> (AreaID, EntryID) {
            let entry = r.parameter("entry")
            guard takenHere.withLock({ $0.contains(entry) }) else { throw WebError.notFound }
            return (AreaID(r.parameter("area")), EntryID(entry))
        }
        return [
            route(.get, "/") { _ in .html(home()) },
            // Skin
            route(.get, "/skin") { _ in .html(skinAreas(try services().skin.areas())) },
            route(.get, "/skin/{area}") { r in
                let summary = try areaSummary(r, try services().skin)
                return .html(skinCapture(summary.area, hasGhost: summary.latestEntry != nil))
            },
            route(.get, "/skin/{area}/ghost.jpg") { r in
                // The chosen area's newest photo only: the ghost over the live camera.
                let skin = try services().skin
                let summary = try areaSummary(r, skin)
                guard let latest = summary.latestEntry else { throw WebError.notFound }
                return SkinRoutes.jpeg(try skin.photoData(of: latest, in: summary.area.id, thumbnail: false))
            },
            route(.post, "/skin/{area}/quality") { r in
                let skin = try services().skin
                _ = try skin.area(AreaID(r.parameter("area")))
                return SkinRoutes.liveScores(r.request, skin: skin)
            },
            route(.post, "/skin/{area}/photos") { r in
                let skin = try services().skin
                let summary = try areaSummary(r, skin)
                let area = summary.area
                guard let data = r.request.formValue("photo"), !data.isEmpty else {
                    return .html(skinCapture(area, hasGhost: summary.latestEntry != nil, error: "Choose a photo to add."), status: 400)
                }
                do {
                    let entry = try skin.log(photo: data, in: area.id)
                    takenHere.withLock { _ = $0.insert(entry.id.rawValue) }
                    return .redirect(to: "/skin/\(area.id.rawValue)/entries/\(entry.id.rawValue)")
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(skinCapture(area, hasGhost: summary.latestEntry != nil, error: error.userMessage), status: 400)
                }
            },
            route(.get, "/skin/{area}/entries/{entry}") { r in
                let (areaID, entryID) = try takenEntry(r)
                return .html(skinResult(try services().skin.comparison(of: entryID, in: areaID), noted: r.query["noted"] == "1"))
            },
            route(.post, "/skin/{area}/entries/{entry}/note") { r in
                let (areaID, entryID) = try takenEntry(r)
                let skin = try services().skin
                do {
                    try skin.setNote(r.form["note"] ?? "", of: entryID, in: areaID)
                } catch let error as TextInputError {
                    return .html(
                        skinResult(try skin.comparison(of: entryID, in: areaID), typed: r.form["note"], noteError: error.userMessage),
                        status: 400)
                }
                return .redirect(to: "/skin/\(areaID.rawValue)/entries/\(entryID.rawValue)?noted=1")
            },
            // Smile: the computer's capture and crop pages, drawn in the phone's frame (`Layout.page`).
            route(.get, "/smile") { r in .html(SmilePages.capture(csrfToken: csrfToken(), phoneNotice: smileNotice(r.query["added"]))) },
            route(.post, "/smile/upload") { r in try SmilePages.upload(r.request, smile: try services().smile, csrfToken: csrfToken()) },
            route(.get, "/smile/crop/{upload}") { r in
                let smile = try services().smile
                return .html(try SmilePages.crop(try smile.pendingUpload(r.parameter("upload")), smile: smile, csrfToken: csrfToken()))
            },
            route(.post, "/smile/crop/{upload}") { r in
                try SmilePages.saveCrop(id: r.parameter("upload"), request: r.request, smile: try services().smile, csrfToken: csrfToken())
            },
            route(.post, "/smile/crop/{upload}/discard") { r in
                try services().smile.discardUpload(r.parameter("upload"))
                return .redirect(to: "/smile")
            },
            // A label photo, for the computer's review.
            route(.get, "/label") { r in .html(labelPage(sent: r.query["sent"] == "1")) },
            route(.post, "/label") { r in
                guard let photo = r.request.formValue("photo"), !photo.isEmpty else {
                    return .html(labelPage(sent: false, error: "Choose a photo of the label first."), status: 400)
                }
                _ = try services()
                sessions.labelInbox.add(photo)
                return .redirect(to: "/label?sent=1")
            },
            // Today
            route(.get, "/today") { r in
                let regimen = try services().regimen
                let view = try regimen.todayView()
                let records = RegimenPages.loggedRecords(r.query["records"], regimen)
                return .html(today(view, notice: RegimenPages.notice(r.query["logged"], records: records, zone: view.timeZone)))
            },
            route(.post, "/regimen/as-needed/{schedule}") { r in
                let regimen = try services().regimen
                return try logged(regimen) { ("1", [try regimen.logAsNeeded(ScheduleID(r.parameter("schedule"))).id]) }
            },
        ]
            + [IntakeStatus.taken, .skipped].map { status in
                route(.post, "/regimen/doses/{dose}/\(status.rawValue)") { r in
                    let regimen = try services().regimen
                    let doseID = r.parameter("dose")
                    let atText = (r.form["at"] ?? "").trimmingCharacters(in: .whitespaces)
                    do {
                        return try logged(regimen, field: atText.isEmpty ? nil : doseID) {
                            let result = try regimen.checkIn(
                                doseID, status: status, typedAt: atText.isEmpty ? nil : atText, confirmedEarly: r.form["early"] == "yes")
                            return (result.alreadyLogged ? "already" : "1", [result.entry.id])
                        }
                    } catch let question as EarlyDoseQuestion {
                        return .html(
                            RegimenPages.earlyPage(
                                question, action: "/regimen/doses/\(doseID)/taken", fields: ["at": atText], back: "/today", csrfToken: csrfToken()))
                    }
                }
            }
    }

    /// The area the path's `{area}` names, with its newest photo (the ghost), in one read. Throws `areaNotFound`.
    static func areaSummary(_ r: RouteRequest, _ skin: SkinService) throws -> SkinAreaSummary {
        let id = AreaID(r.parameter("area"))
        guard let summary = try skin.areas().first(where: { $0.area.id == id }) else { throw SkinJournalError.areaNotFound }
        return summary
    }

    /// The CSRF token of the phone being answered (its forms and `fetch` calls carry it).
    static func csrfToken() -> String { PhoneRequest.current?.phone.csrfToken ?? "" }

    // MARK: home

    static func home() -> String {
        PhonePages.page(
            title: "Cairn on this phone",
            body: """
                <div class="page-intro"><h1>Cairn on this phone</h1>
                <p class="lead">Photos and doses go straight to the journal on your computer. This phone keeps nothing of it after the session ends.</p></div>
                <ul class="phone-actions">
                <li><a class="button" href="/skin" id="phone-skin">Skin photo</a></li>
                <li><a class="button" href="/smile" id="phone-smile">Smile photo</a></li>
                <li><a class="button" href="/label" id="phone-label">Label photo</a></li>
                <li><a class="button" href="/today" id="phone-today">Today's doses</a></li>
                </ul>
                """)
    }

    /// The words beside a file input that opens the phone's own camera app.
    static let cameraAppCopy: HTML =
        "<p class=\"help\" id=\"camera-app-copy\">If the photo is taken with your phone's camera app, that app may keep its own copy in your phone's gallery; Cairn cannot remove it.</p>"

    // MARK: Skin

    static func skinAreas(_ areas: [SkinAreaSummary]) -> String {
        let items = areas.map { a -> HTML in
            "<li><a class=\"button button-quiet\" href=\"/skin/\(a.area.id.rawValue)\">\(a.area.name)</a></li>"
        }
        let list: HTML =
            items.isEmpty
            ? "<p class=\"notice\" id=\"phone-no-area\">There is no area yet. Add one on your computer, under Skin, then choose it here.</p>"
            : "<ul class=\"phone-actions\" aria-label=\"Areas\">\(items)</ul>"
        return PhonePages.page(
            title: "Skin photo",
            body: """
                <div class="page-intro"><p class="skin-crumb"><a href="/">Cairn on this phone</a></p><h1>Which area?</h1>
                <p class="lead">Each area is compared only with its own first photo.</p></div>
                \(list)
                """)
    }

    /// The guided capture, built for one hand: the viewfinder with the area's last photo as a ghost and the framing
    /// box, the badges (light and focus from Cairn's analyser, steadiness from the phone's motion sensor where the
    /// browser allows it, else from the change between frames), and the shutter at the bottom, within the thumb's
    /// reach. The file input opens the phone's camera app where the browser gives no camera (and always works
    /// without JavaScript). The same element ids as the computer's capture page, so `skin.js` drives both.
    static func skinCapture(_ area: TrackingArea, hasGhost: Bool, error: String? = nil) -> String {
        let base = "/skin/\(area.id.rawValue)"
        let ghost: HTML = hasGhost ? "<img class=\"skin-ghost\" id=\"ghost\" src=\"\(base)/ghost.jpg\" alt=\"\">" : ""
        let ghostControl: HTML =
            hasGhost
            ? """
            <div class="stack" id="ghost-control" hidden><label for="ghost-opacity">Last photo as a guide</label>
            <input type="range" id="ghost-opacity" min="0" max="80" value="35" class="skin-slider" aria-valuetext="Last photo 35% visible"></div>
            """ : ""
        let guidance: HTML =
            area.guidance.isEmpty
            ? "" : "<p class=\"skin-guidance\"><strong>How to take these photos:</strong> \(TextInput.displayed(area.guidance))</p>"
        let problem: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"upload-error\">\($0)</p>" }
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"upload-error\""
        return PhonePages.page(
            title: "Skin photo",
            body: """
                <div class="page-intro"><p class="skin-crumb"><a href="/skin">Areas</a></p><h1>\(area.name)</h1>\(guidance)</div>
                <section class="phone-capture skin-capture" id="skin-capture" data-quality="\(base)/quality" data-upload="\(base)/photos" data-csrf="\(csrfToken())">
                <div class="phone-stage" id="phone-stage">
                <div class="skin-viewfinder" id="viewfinder" hidden>
                <video id="camera" autoplay playsinline muted></video>\(ghost)<div class="skin-frame" aria-hidden="true"></div>
                </div>
                <p class="skin-badges" id="badges" aria-live="polite" hidden><span class="skin-badge" id="badge-light">Light: waiting for the camera</span> \
                <span class="skin-badge" id="badge-focus">Focus: waiting for the camera</span> <span class="skin-badge" id="badge-steady">Steadiness: waiting for the camera</span></p>
                <p class="help" id="camera-status">If the camera does not start here, take the photo with the camera app below.</p>
                <button type="button" class="button phone-shutter" id="shutter" hidden>Take photo</button>
                </div>
                \(ghostControl)
                <button type="button" class="button button-quiet" id="motion-permission" hidden>Use the motion sensor for steadiness</button>
                <form method="post" action="\(base)/photos" enctype="multipart/form-data" class="stack" id="skin-upload" data-csrf="\(csrfToken())">\(Layout.csrfField(csrfToken()))\
                <input type="hidden" name="from" value="capture">
                <label for="photo">Photo from the camera app</label>
                <input type="file" id="photo" name="photo" accept="image/*" capture="environment"\(invalid)>\(problem)
                \(cameraAppCopy)
                <div class="form-actions"><button type="submit" class="button button-quiet" id="upload">Add this photo</button></div>
                </form>
                </section>
                <script src="/assets/skin.js" defer></script>
                <script src="/assets/phone-capture.js" defer></script>
                """)
    }

    /// A photo this session took: its figure with the disclaimer beside it (or why there is none), and its note.
    static func skinResult(_ v: SkinComparisonView, noted: Bool = false, typed: String? = nil, noteError: String? = nil) -> String {
        let figure: HTML
        if v.isBaseline {
            figure = "<p class=\"skin-verdict\">This is the first photo of this area. Every later photo is compared with it.</p>"
        } else if let c = v.comparison, let s = c.similarityPercent {
            figure = """
                <p class="skin-verdict"><span class="skin-big" id="similarity">\(SkinPages.percent(s))</span> <span>visual similarity to the first photo</span></p>
                \(SkinPages.band(s))
                \(SkinPages.disclaimer(.similarity))
                \(SkinPages.coverage(v, hatched: false))
                """
        } else if let c = v.comparison {
            figure =
                "<p class=\"skin-verdict\" id=\"not-comparable\"><strong>Not comparable.</strong> \((c.reasonNotComparable ?? .alignmentFailed).userMessage) No figure is given.</p>"
        } else {
            figure = "<p class=\"skin-verdict\">This photo has not been compared yet.</p>"
        }
        let base = "/skin/\(v.area.id.rawValue)"
        let note: HTML =
            v.entry.note.isEmpty || noteError != nil
            ? "<section class=\"card skin-note-step\" aria-labelledby=\"note-label\">\(noteForm(v, typed: typed, error: noteError))</section>"
            : "<p class=\"skin-note\" id=\"note\"><span class=\"skin-note-text\">Note: \(TextInput.displayed(v.entry.note))</span></p>"
        let notice: HTML? = noted ? "<p class=\"notice\" role=\"status\">The note was saved.</p>" : nil
        return PhonePages.page(
            title: "Photo added",
            body: """
                <div class="page-intro"><p class="skin-crumb"><a href="/skin">Areas</a></p><h1>Photo added</h1>
                <p class="lead">\(v.area.name): the photo is in the journal on your computer.</p></div>
                \(notice)
                \(figure)
                \(note)
                <ul class="phone-actions">
                <li><a class="button" href="\(base)" id="phone-again">Take another photo</a></li>
                <li><a class="button button-quiet" href="/">Done</a></li>
                </ul>
                """)
    }

    static func noteForm(_ v: SkinComparisonView, typed: String?, error: String?) -> HTML {
        let errorHTML: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"note-error\">\($0)</p>" }
        let described = "note-help" + (error == nil ? "" : " note-error")
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\""
        return """
            <form method="post" action="/skin/\(v.area.id.rawValue)/entries/\(v.entry.id.rawValue)/note" class="stack" id="note-form">\(Layout.csrfField(csrfToken()))\
            <label for="note" id="note-label">Note (optional)</label>
            <p class="help" id="note-help">The light, a new cream, anything you want to remember. Up to \(TextInput.maximumNoteLength) characters.</p>
            <textarea id="note" name="note" rows="3" maxlength="\(TextInput.maximumNoteLength)" aria-describedby="\(described)"\(invalid)>\(typed ?? v.entry.note)</textarea>\(errorHTML)
            <div class="form-actions"><button type="submit" class="button" id="save-note">Save note</button></div>
            </form>
            """
    }

    // MARK: Smile

    static func smileNotice(_ added: String?) -> String? {
        added == nil ? nil : "Saved. Only the square around your mouth was kept; the photo itself was not stored."
    }

    // MARK: label

    static func labelPage(sent: Bool, error: String? = nil) -> String {
        let problem: HTML? = error.map { "<p class=\"field-error\" role=\"alert\" id=\"label-error\">\($0)</p>" }
        let invalid: HTML = error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"label-error\""
        let notice: HTML? =
            sent
            ? "<p class=\"notice\" role=\"status\" id=\"label-sent\">Sent. On your computer, open Settings → Use your phone to review what was read: nothing is saved until you check it there.</p>"
            : nil
        return PhonePages.page(
            title: "Label photo",
            body: """
                <div class="page-intro"><p class="skin-crumb"><a href="/">Cairn on this phone</a></p><h1>Label photo</h1>
                <p class="lead">Photograph the Supplement Facts panel, flat and well lit. Cairn reads it on your computer, where you check every row before anything is saved.</p></div>
                \(notice)
                <form method="post" action="/label" enctype="multipart/form-data" class="stack card" id="label-form">\(Layout.csrfField(csrfToken()))\
                <label for="label-photo">Photo of the label</label>
                <input type="file" id="label-photo" name="photo" accept="image/*" capture="environment" required\(invalid)>\(problem)
                \(cameraAppCopy)
                <div class="form-actions"><button type="submit" class="button" id="label-send">Send to the computer</button></div>
                </form>
                """)
    }

    // MARK: Today

    /// Runs a Today action; redirects to Today, or shows Today with the service's message beside the "Taken at"
    /// field of `field` (status 400).
    static func logged(
        _ regimen: RegimenService, field: String? = nil, _ action: () throws -> (notice: String, records: [IntakeRecordID])
    ) throws -> Response {
        do {
            let (notice, records) = try action()
            return .redirect(to: "/today?logged=\(notice)&records=" + records.map(\.rawValue).joined(separator: ","))
        } catch let error as CairnError where error.errorKind == .refusedInput && !(error is EarlyDoseQuestion) {
            // (An early dose is asked about by the caller.)
            let message = error.userMessage + " Nothing was saved."
            let view = try regimen.todayView()
            let inRow = RegimenPages.openRowID(field, in: view)
            return .html(today(view, error: inRow == nil ? message : nil, fieldError: inRow.map { ($0, message) }), status: 400)
        }
    }

    /// Today on the phone: the doses due now, the ones earlier today not logged yet, later today, and as-needed
    /// products, each with Taken, Skipped and "Taken at another time" (the same rows and actions as the computer's
    /// Today, idempotent with every door); what was logged today, without Undo (that stays on the computer).
    static func today(
        _ view: TodayView, notice: String? = nil, error: String? = nil, fieldError: (doseID: String, message: String)? = nil
    ) -> String {
        let token = csrfToken()
        func rows(_ doses: [TodayDose]) -> HTML {
            HTML.join(
                doses.map {
                    RegimenPages.openRow(
                        $0, csrfToken: token, fieldError: fieldError?.doseID == $0.doseID ? fieldError?.message : nil, autofocus: false)
                }, separator: "\n")
        }
        func section(_ id: String, _ title: String, _ doses: [TodayDose]) -> HTML? {
            doses.isEmpty
                ? nil
                : """
                <section class="card" aria-labelledby="\(id)-title">
                <h2 id="\(id)-title">\(title)</h2>
                <ul class="regimen-doses">
                \(rows(doses))
                </ul>
                </section>
                """
        }
        let asNeeded = view.asNeeded.map { RegimenPages.asNeededRow($0, csrfToken: token) }
        let loggedToday = view.loggedToday.compactMap { dose -> HTML? in
            guard let record = dose.record else { return nil }
            return
                "<li class=\"regimen-next\"><span class=\"regimen-time\">\(dose.time.description)</span> \(dose.productName): \(RegimenPages.stateWords(dose.state)), \(DateText.string(record.takenAt, .clock, in: view.timeZone))</li>"
        }
        let nothing = view.doses.isEmpty && view.asNeeded.isEmpty
        let body: HTML = """
            <div class="page-intro"><p class="skin-crumb"><a href="/">Cairn on this phone</a></p><h1>Today</h1>
            <p class="lead">\(DateText.string(view.now, .day, in: view.timeZone))</p></div>
            \(notice.map { n -> HTML in "<p class=\"notice\" role=\"status\" id=\"regimen-notice\">\(n)</p>" })
            \(error.map { e -> HTML in "<p class=\"form-error\" role=\"alert\" id=\"regimen-error\">\(e)</p>" })
            \(nothing ? "<p class=\"notice\" id=\"phone-nothing-today\">Nothing is scheduled today. Products and schedules are added on your computer.</p>" as HTML : nil)
            \(section("batch", view.batchHeading, view.currentBatch))
            \(section("earlier", "Earlier today, not logged yet", view.earlierOpen))
            \(section("later", "Later today", view.laterToday))
            \(asNeeded.isEmpty ? nil : "<section class=\"card\" aria-labelledby=\"as-needed-title\"><h2 id=\"as-needed-title\">As needed</h2><ul class=\"regimen-doses\">\(asNeeded)</ul></section>" as HTML)
            \(loggedToday.isEmpty ? nil : "<section class=\"card\" aria-labelledby=\"logged-title\"><h2 id=\"logged-title\">Logged today</h2><ul class=\"regimen-list\">\(loggedToday)</ul></section>" as HTML)
            """
        return PhonePages.page(title: "Today", body: body)
    }
}
