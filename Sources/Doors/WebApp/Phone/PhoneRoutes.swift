import Foundation

/// The phone's route table once it is paired: the only pages its session cookie opens (`PhoneApplication` checks the
/// cookie, Host, Origin and the phone's CSRF token before any of them is asked).
///
/// To add a phone page (capture, Today): add a `route(...)` here. `PhoneRequest.current` is the phone being answered
/// (its `csrfToken` for forms: `Layout.csrfField(phone.csrfToken)`); `sessions.services` the opened vault's services
/// (the session ends when the vault locks, so a route never runs on a locked vault); draw the page with
/// `PhonePages.page(title:body:)`, which carries the session banner and the script that replaces the page when the
/// session ends. A route that takes a photo adds its path to `maximumBodyBytes`.
enum PhoneRoutes {
    static func routes(_ sessions: PhoneSessions) -> [Route] {
        [
            // The pages' check that the session still holds this phone (phone.js asks every few seconds).
            route(.get, "/session") { _ in Response(status: 204) }
        ] + PhoneJournalPages.routes(sessions)
    }

    /// The largest body a phone route takes: a photo (the server's upload limit) where a photo is sent, a form's
    /// size elsewhere.
    static func maximumBodyBytes(forPath path: String, configured: Int) -> Int {
        let segments = path.split(separator: "/")
        let takesAPhoto =
            (segments.count == 3 && segments[0] == "skin" && (segments[2] == "photos" || segments[2] == "quality"))
            || path == "/smile/upload" || path == "/label"
        return takesAPhoto ? configured : min(configured, SecurityPolicy.maximumFormBytes)
    }
}
