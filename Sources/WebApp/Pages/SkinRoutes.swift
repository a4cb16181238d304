import CairnApp
import CairnCore
import Foundation
import Skin

/// The Skin journal's routes under `/skin`. Views only read stored rows through `SkinService`.
enum SkinRoutes {
    static func route(method: HTTPMethod, request: Request, skin: SkinService, settings: any SettingsServicing,
                      csrfToken: String) throws -> Response {
        let parts = request.path.split(separator: "/").map(String.init)  // ["skin", "areas", ID, ...]
        let get = method == .get, post = method == .post
        if parts == ["skin"] {
            guard get else { throw WebError.methodNotAllowed }
            return .html(SkinPages.home(try skin.areas(), csrfToken: csrfToken))
        }
        if parts == ["skin", "areas"] {
            guard post else { throw WebError.methodNotAllowed }
            let form = request.form
            do {
                let area = try skin.addArea(name: form["name"] ?? "", bodyLocation: form["location"], guidance: form["guidance"] ?? "")
                return .redirect(to: "/skin/areas/\(area.id.rawValue)")
            } catch let error as SkinJournalError {
                return .html(SkinPages.home(try skin.areas(), csrfToken: csrfToken, error: error.userMessage), status: 400)
            }
        }
        guard parts.count >= 3, parts[1] == "areas", Self.isIdentifier(parts[2]) else { throw WebError.notFound }
        let areaID = AreaID(parts[2])
        let rest = Array(parts.dropFirst(3))
        let details = try settings.flag(SettingsPages.comparisonDetailsFlag)
        do {
            switch rest.count {
            case 0:
                guard get else { throw WebError.methodNotAllowed }
                return .html(SkinPages.timeline(try skin.timeline(of: areaID), details: details, csrfToken: csrfToken,
                                                notice: request.query["deleted"] == "1" ? "The photo was removed." : nil))
            case 1:
                switch rest[0] {
                case "trend":
                    guard get else { throw WebError.methodNotAllowed }
                    return .html(SkinPages.trend(try skin.timeline(of: areaID)))
                case "photos":
                    guard post else { throw WebError.methodNotAllowed }
                    return try logPhoto(request, areaID: areaID, skin: skin, details: details, csrfToken: csrfToken)
                case "capture":
                    guard get else { throw WebError.methodNotAllowed }
                    return .html(SkinPages.capture(try skin.timeline(of: areaID), csrfToken: csrfToken))
                case "quality":
                    guard post else { throw WebError.methodNotAllowed }
                    _ = try skin.area(areaID)
                    guard let q = try? skin.liveQuality(frame: request.body) else {
                        return Response(status: 400, headers: [("Content-Type", "application/json")], body: Data("{\"error\":\"not an image\"}".utf8))
                    }
                    let light = q.isTooDark ? "Too dark" : q.isTooBright ? "Too bright" : q.isClipped ? "Some parts too dark or bright" : "Light looks even"
                    let focus = q.isSoft ? "Looks soft: hold still or move back a little" : "Looks sharp"
                    let json = "{\"light\":\"\(light)\",\"lightGood\":\(!(q.isTooDark || q.isTooBright || q.isClipped)),\"focus\":\"\(focus)\",\"focusGood\":\(!q.isSoft)}"
                    return Response(status: 200, headers: [("Content-Type", "application/json")], body: Data(json.utf8))
                case "rename":
                    guard post else { throw WebError.methodNotAllowed }
                    try skin.renameArea(areaID, to: request.form["name"] ?? "")
                    return .redirect(to: "/skin/areas/\(areaID.rawValue)")
                case "delete":
                    let timeline = try skin.timeline(of: areaID)
                    if get { return .html(SkinPages.confirmDeleteArea(timeline, csrfToken: csrfToken)) }
                    guard post else { throw WebError.methodNotAllowed }
                    try skin.deleteArea(areaID)
                    return .redirect(to: "/skin")
                default: throw WebError.notFound
                }
            default:
                guard rest[0] == "entries", Self.isIdentifier(rest[1]) else { throw WebError.notFound }
                let entryID = EntryID(rest[1])
                switch rest.count == 2 ? "" : rest[2] {
                case "" where rest.count == 2:
                    guard get else { throw WebError.methodNotAllowed }
                    return .html(SkinPages.compare(try skin.comparison(of: entryID, in: areaID), details: details))
                case "photo.jpg", "thumbnail.jpg":
                    guard get else { throw WebError.methodNotAllowed }
                    return jpeg(try skin.photoData(of: entryID, in: areaID, thumbnail: rest[2] == "thumbnail.jpg"))
                case "change-map.jpg":
                    guard get else { throw WebError.methodNotAllowed }
                    guard let data = try skin.changeMapJPEG(of: entryID, in: areaID) else { throw WebError.notFound }
                    return jpeg(data)
                case "delete":
                    if get {
                        let view = try skin.comparison(of: entryID, in: areaID)
                        return .html(SkinPages.confirmDeleteEntry(view, consequence: try skin.deletionConsequence(of: entryID, in: areaID),
                                                                  csrfToken: csrfToken))
                    }
                    guard post else { throw WebError.methodNotAllowed }
                    try skin.deleteEntry(entryID, in: areaID)
                    return .redirect(to: "/skin/areas/\(areaID.rawValue)?deleted=1")
                default: throw WebError.notFound
                }
            }
        } catch SkinJournalError.areaNotFound, SkinJournalError.entryNotFound {
            throw WebError.notFound
        }
    }

    /// Logs an uploaded photo (multipart form, sent by skin.js with the CSRF header).
    static func logPhoto(_ request: Request, areaID: AreaID, skin: SkinService, details: Bool, csrfToken: String) throws -> Response {
        guard let data = request.formValue("photo"), !data.isEmpty else {
            return .html(SkinPages.timeline(try skin.timeline(of: areaID), details: details, csrfToken: csrfToken,
                                            uploadError: "Choose a photo to add."), status: 400)
        }
        let note = request.form["note"] ?? ""
        do {
            let entry = try skin.log(photo: data, in: areaID, note: note)
            return .redirect(to: "/skin/areas/\(areaID.rawValue)/entries/\(entry.id.rawValue)")
        } catch let error as SkinJournalError {
            guard case .unreadablePhoto(let message) = error else { throw error }
            return .html(SkinPages.timeline(try skin.timeline(of: areaID), details: details, csrfToken: csrfToken,
                                            uploadError: message), status: 400)
        }
    }

    static func jpeg(_ data: Data) -> Response {
        Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: data)
    }

    /// Identifiers are lower-case UUID strings: anything else is not looked up.
    static func isIdentifier(_ text: String) -> Bool {
        text.count == 36 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }
}
