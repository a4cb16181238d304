import CairnApp
import CairnCore
import Foundation
import Skin

/// The Skin journal's routes under `/skin`. Views only read stored rows through `SkinService`; an area or a photo
/// that is not there answers 404 (`SkinJournalError` carries its status).
enum SkinRoutes {
    static func routes(_ skin: SkinService, settings: any SettingsServicing, csrfToken: String) -> [Route] {
        @Sendable func details() throws -> Bool { try settings.flag(SettingFlag.showComparisonDetails) }
        return [
            route(.get, "/skin") { _ in .html(SkinPages.home(try skin.areas(), csrfToken: csrfToken)) },
            route(.post, "/skin/areas") { r in
                let form = r.form
                do {
                    let area = try skin.addArea(name: form["name"] ?? "", bodyLocation: form["location"], guidance: form["guidance"] ?? "")
                    return .redirect(to: "/skin/areas/\(area.id.rawValue)")
                } catch let error as SkinJournalError {
                    return .html(SkinPages.home(try skin.areas(), csrfToken: csrfToken, error: error.userMessage), status: 400)
                } catch let error as TextInputError {
                    return .html(SkinPages.home(try skin.areas(), csrfToken: csrfToken, error: error.userMessage), status: 400)
                }
            },
            route(.get, "/skin/areas/{area}") { r in
                let areaID = try area(r)
                return .html(
                    SkinPages.timeline(
                        try skin.timeline(of: areaID), details: try details(), csrfToken: csrfToken,
                        notice: r.query["deleted"] == "1" ? "The photo was removed." : nil))
            },
            route(.get, "/skin/areas/{area}/trend") { r in
                let areaID = try area(r)
                return .html(SkinPages.trend(try skin.timeline(of: areaID)))
            },
            route(.post, "/skin/areas/{area}/photos") { r in
                let areaID = try area(r)
                return try logPhoto(r.request, areaID: areaID, skin: skin, details: try details(), csrfToken: csrfToken)
            },
            route(.get, "/skin/areas/{area}/capture") { r in
                let areaID = try area(r)
                return .html(SkinPages.capture(try skin.timeline(of: areaID), csrfToken: csrfToken))
            },
            route(.post, "/skin/areas/{area}/quality") { r in
                _ = try skin.area(try area(r))
                return liveScores(r.request, skin: skin)
            },
            route(.post, "/skin/areas/{area}/rename") { r in
                let areaID = try area(r)
                let typed = r.form["name"] ?? ""
                do {
                    try skin.renameArea(areaID, to: typed)
                } catch let error as CairnError where error.errorKind == .refusedInput {
                    return .html(
                        SkinPages.timeline(
                            try skin.timeline(of: areaID), details: try details(), csrfToken: csrfToken,
                            renameError: (typed, error.userMessage)), status: 400)
                }
                return .redirect(to: "/skin/areas/\(areaID.rawValue)")
            },
            route(.get, "/skin/areas/{area}/delete") { r in
                let areaID = try area(r)
                return .html(SkinPages.confirmDeleteArea(try skin.timeline(of: areaID), csrfToken: csrfToken))
            },
            route(.post, "/skin/areas/{area}/delete") { r in
                let areaID = try area(r)
                try skin.deleteArea(areaID)
                return .redirect(to: "/skin")
            },
            route(.get, "/skin/areas/{area}/entries/{entry}") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                return .html(
                    SkinPages.compare(
                        try skin.comparison(of: entryID, in: areaID), details: try details(),
                        notice: r.query["noted"] == "1" ? "The note was saved." : nil, added: r.query["added"] == "1",
                        csrfToken: csrfToken))
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/note") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                let view = try skin.noteView(of: entryID, in: areaID)
                return .html(
                    SkinPages.note(
                        area: view.area, entry: view.entry, history: view.history, isNew: r.query["new"] == "1", csrfToken: csrfToken))
            },
            route(.post, "/skin/areas/{area}/entries/{entry}/note") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                let typed = r.form["note"] ?? ""
                do {
                    let changed = try skin.setNote(typed, of: entryID, in: areaID)
                    return .redirect(to: "/skin/areas/\(areaID.rawValue)/entries/\(entryID.rawValue)" + (changed ? "?noted=1" : ""))
                } catch let error as TextInputError {
                    let view = try skin.noteView(of: entryID, in: areaID)
                    return .html(
                        SkinPages.note(
                            area: view.area, entry: view.entry, history: view.history, isNew: r.form["new"] == "1",
                            csrfToken: csrfToken, typed: typed, error: error.userMessage), status: 400)
                }
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/photo.jpg") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                return jpeg(try skin.photoData(of: entryID, in: areaID, thumbnail: false))
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/thumbnail.jpg") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                return jpeg(try skin.photoData(of: entryID, in: areaID, thumbnail: true))
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/change-map.jpg") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                guard let data = try skin.changeMapJPEG(of: entryID, in: areaID) else { throw WebError.notFound }
                return jpeg(data)
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/not-compared.jpg") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                guard let data = try skin.changeMapJPEG(of: entryID, in: areaID, notCompared: true) else { throw WebError.notFound }
                return jpeg(data)
            },
            route(.get, "/skin/areas/{area}/entries/{entry}/delete") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                let view = try skin.comparison(of: entryID, in: areaID)
                return .html(
                    SkinPages.confirmDeleteEntry(
                        view, consequence: try skin.deletionConsequence(of: entryID, in: areaID),
                        csrfToken: csrfToken))
            },
            route(.post, "/skin/areas/{area}/entries/{entry}/delete") { r in
                let (areaID, entryID) = try (area(r), entry(r))
                try skin.deleteEntry(entryID, in: areaID)
                return .redirect(to: "/skin/areas/\(areaID.rawValue)?deleted=1")
            },
        ]
    }

    /// The `{area}` of the address; anything but an identifier is not looked up (404).
    static func area(_ request: RouteRequest) throws -> AreaID {
        guard isIdentifier(request.parameter("area")) else { throw WebError.notFound }
        return AreaID(request.parameter("area"))
    }

    /// The `{entry}` of the address; anything but an identifier is not looked up (404).
    static func entry(_ request: RouteRequest) throws -> EntryID {
        guard isIdentifier(request.parameter("entry")) else { throw WebError.notFound }
        return EntryID(request.parameter("entry"))
    }

    /// Logs an uploaded photo (multipart form: a plain form, or skin.js with the CSRF header) and goes on to the
    /// note step. A problem with the file is shown beside the file field of the page it came from (`from=capture`
    /// for the camera page).
    static func logPhoto(_ request: Request, areaID: AreaID, skin: SkinService, details: Bool, csrfToken: String) throws -> Response {
        func problem(_ message: String) throws -> Response {
            let timeline = try skin.timeline(of: areaID)
            let page =
                request.form["from"] == "capture"
                ? SkinPages.capture(timeline, csrfToken: csrfToken, uploadError: message)
                : SkinPages.timeline(timeline, details: details, csrfToken: csrfToken, uploadError: message)
            return .html(page, status: 400)
        }
        guard let data = request.formValue("photo"), !data.isEmpty else { return try problem("Choose a photo to add.") }
        do {
            // One call stores the photo and its comparison (a read and a write); the next page is the photo's one
            // screen: the figure with its disclaimer and the optional note step.
            let entry = try skin.log(photo: data, in: areaID)
            return .redirect(to: SkinPages.entryPath(entry) + "?added=1")
        } catch let error as SkinJournalError {
            guard case .unreadablePhoto(let message) = error else { throw error }
            return try problem(message)
        }
    }

    /// Scores one live frame (multipart: `frame`, and the page's previous frame as `previous` for the steadiness
    /// badge) and answers the badges' words as JSON. Nothing is stored.
    static func liveScores(_ request: Request, skin: SkinService) -> Response {
        guard let frame = request.formValue("frame"), let scores = try? skin.liveScores(frame: frame, previous: request.formValue("previous")) else {
            return .json(["error": "not an image"], status: 400)
        }
        let q = scores.quality
        return .json(
            LiveBadges(
                light: q.lightWords, lightGood: q.isLightGood, focus: q.isSoft ? "\(q.focusWords): \(CaptureQuality.softAdvice)" : q.focusWords,
                focusGood: !q.isSoft, steady: scores.steadiness?.words, steadyGood: scores.steadiness?.isSteady))
    }

    /// The live capture badges' words, as the page's script reads them (`steady…` only once a previous frame came).
    struct LiveBadges: Encodable {
        let light: String
        let lightGood: Bool
        let focus: String
        let focusGood: Bool
        let steady: String?
        let steadyGood: Bool?
    }

    static func jpeg(_ data: Data) -> Response {
        Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: data)
    }

    /// Identifiers are lower-case UUID strings: anything else is not looked up.
    static func isIdentifier(_ text: String) -> Bool {
        text.count == 36 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }
}
