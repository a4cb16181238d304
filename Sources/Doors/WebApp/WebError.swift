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
    /// A service refused what the request gave it and no page showed the form again: the service's own sentence.
    case refused(String)
    /// The vault's state forbids the action now (another process holds it, a file is already there).
    case conflict(String)
    /// Something the action needs is not there (a library, a model, the database).
    case unavailable(String)
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
        case .badForm, .refused: return 400
        case .conflict: return 409
        case .serviceFailed: return 500
        case .unavailable: return 503
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
        case .badForm, .refused: return "Please check the form"
        case .conflict: return "Not possible right now"
        case .serviceFailed: return "Something went wrong"
        case .unavailable: return "Not available"
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
        case .serviceFailed(let message), .noSuchRecord(let message), .refused(let message), .conflict(let message),
            .unavailable(let message):
            return message
        }
    }
}

extension WebError {
    /// The page answered for an error a handler threw: a `WebError` as it is, any other `CairnError` by its kind
    /// (`ErrorKind`, declared once on the error's own type) with the service's own sentence: not found 404
    /// ("Page not found"), refused input 400, conflict 409, unavailable 503, failure 500; an error that is not
    /// Cairn's as 500 with a sentence of its own. The one error-to-status mapping: a page catches only the
    /// refusals it shows beside its form.
    init(answering error: any Error) {
        switch error {
        case let error as WebError: self = error
        case let error as any CairnError:
            switch error.errorKind {
            case .notFound: self = .noSuchRecord(error.userMessage)
            case .refusedInput: self = .refused(error.userMessage)
            case .conflict: self = .conflict(error.userMessage)
            case .unavailable: self = .unavailable(error.userMessage)
            case .failure: self = .serviceFailed(error.userMessage)
            }
        default: self = .serviceFailed("Cairn could not complete this action. Nothing else was changed.")
        }
    }
}

extension WebError {
    public var errorKind: ErrorKind {
        switch self {
        case .notFound, .noSuchRecord: return .notFound
        case .serviceFailed: return .failure
        case .conflict: return .conflict
        case .unavailable: return .unavailable
        case .missingSecret, .wrongHost, .csrfRejected, .methodNotAllowed, .bodyTooLarge, .badForm, .refused: return .refusedInput
        }
    }
}
