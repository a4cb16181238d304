import CairnApp
import CairnCore
import Outcomes
import Regimen

/// What can go wrong while answering a request; each case knows its HTTP status and its plain message.
public enum WebError: CairnError, Equatable {
    /// The request did not carry the per-launch secret (no or wrong session cookie, wrong `?key=`).
    case missingSecret
    /// The `Host` header does not name this loopback server (DNS rebinding guard).
    case wrongHost
    /// A state-changing request without a valid CSRF token, or from another origin.
    case csrfRejected
    /// No page at this address.
    case notFound
    /// The page exists but not for this method.
    case methodNotAllowed
    /// The request body is larger than the server accepts.
    case bodyTooLarge
    /// A form was missing a field or had a value the page does not accept.
    case badForm
    /// A service failed; the message is the service's own `userMessage` (never user content).
    case serviceFailed(String)
    /// An identifier in the address names nothing (no such entry, area, product, held upload); the message is
    /// the service's own `userMessage`.
    case noSuchRecord(String)

    /// The HTTP status code this error is answered with.
    public var status: Int {
        switch self {
        case .missingSecret, .csrfRejected: return 403
        case .wrongHost: return 421
        case .notFound, .noSuchRecord: return 404
        case .methodNotAllowed: return 405
        case .bodyTooLarge: return 413
        case .badForm: return 400
        case .serviceFailed: return 500
        }
    }

    /// A short title for the error page.
    public var title: String {
        switch self {
        case .missingSecret: return "Open Cairn from its address"
        case .wrongHost: return "Wrong address"
        case .csrfRejected: return "This form has expired"
        case .notFound, .noSuchRecord: return "Page not found"
        case .methodNotAllowed: return "Not available"
        case .bodyTooLarge: return "Too large"
        case .badForm: return "Please check the form"
        case .serviceFailed: return "Something went wrong"
        }
    }

    public var userMessage: String {
        switch self {
        case .missingSecret:
            return "This page needs the private address that Cairn printed when it started. Open the address shown by `cairn serve` in this browser."
        case .wrongHost:
            return "Cairn only answers at http://127.0.0.1 on this computer. Open the address shown by `cairn serve`."
        case .csrfRejected:
            return "The form could not be accepted because it did not come from this Cairn page. Go back, reload the page and try again."
        case .notFound:
            return "There is no page at this address."
        case .methodNotAllowed:
            return "This page cannot be used that way."
        case .bodyTooLarge:
            return "The upload is larger than Cairn accepts."
        case .badForm:
            return "The form was incomplete. Go back and try again."
        case .serviceFailed(let message), .noSuchRecord(let message):
            return message
        }
    }
}

extension WebError {
    /// The page answered for an error a handler threw: a `WebError` as it is, a journal's "not found" (an error
    /// whose `namesNoRecord` is true, decided once on the error's own type) as the "Page not found" page with
    /// status 404 and the journal's own sentence, anything else as "Something went wrong" with the service's own
    /// message. The one error-to-status mapping: no page catches "not found" itself.
    init(answering error: any Error) {
        switch error {
        case let error as WebError: self = error
        case let error as any CairnError where error.namesNoRecord: self = .noSuchRecord(error.userMessage)
        case let error as any CairnError: self = .serviceFailed(error.userMessage)
        default: self = .serviceFailed("Cairn could not complete this action. Nothing else was changed.")
        }
    }
}
