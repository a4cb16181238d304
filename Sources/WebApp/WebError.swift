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

/// An error that carries the HTTP status it is answered with (as Hummingbird's `HTTPResponseError` does), so the
/// router answers it without a catch site in any page: the "not found" kinds of every journal answer 404, every
/// other refusal a page did not handle itself answers 500 with its own message, as before.
protocol HTTPResponseError: CairnError {
    /// The status code of the answer.
    var status: Int { get }
}

extension WebError: HTTPResponseError {
    /// The page answered for an error a handler threw: a `WebError` as it is, a "not found" of a journal as the
    /// "Page not found" page, anything else as "Something went wrong" with the service's own message.
    init(answering error: any Error) {
        switch error {
        case let error as WebError: self = error
        case let error as any CairnError where error.namesNoRecord: self = .noSuchRecord(error.userMessage)
        case let error as any HTTPResponseError where error.status == 404: self = .notFound
        case let error as any CairnError: self = .serviceFailed(error.userMessage)
        default: self = .serviceFailed("Cairn could not complete this action. Nothing else was changed.")
        }
    }
}

extension SkinJournalError: HTTPResponseError {
    var status: Int { self == .areaNotFound || self == .entryNotFound ? 404 : 500 }
}

extension SmileError: HTTPResponseError {
    var status: Int { self == .noSuchEntry ? 404 : 500 }
}

extension ScheduleError: HTTPResponseError {
    var status: Int {
        switch self {
        case .doseNotFound, .scheduleNotFound, .productNotFound, .recordNotFound: return 404
        default: return 500
        }
    }
}

extension OutcomeError: HTTPResponseError {
    var status: Int { self == .entryNotFound ? 404 : 500 }
}

extension InsightServiceError: HTTPResponseError {
    var status: Int {
        if case .unknownMetric = self { return 404 }
        return 500
    }
}
