/// What kind of refusal an error is: the doors map a kind once, the web to an HTTP status (`WebError(answering:)`)
/// and the CLI to an exit code (`CairnCommandLine`), so no page or command decides either for itself.
public enum ErrorKind: String, Sendable, CaseIterable {
    /// An identifier names nothing (no such entry, area, product...): 404 on the web.
    case notFound
    /// What the person gave is not accepted (a value, a file, a passphrase): the form is shown again with the error
    /// beside its field, else 400.
    case refusedInput
    /// The request is sound but the vault's state forbids it now (another process holds the vault, a file is already
    /// there, the lock is already on): 409.
    case conflict
    /// Something Cairn needs is not there (a library, a model, the passphrase of a locked vault, the database): 503.
    case unavailable
    /// Cairn failed (a disk, a damaged file, a bug): 500.
    case failure
}

/// An error that can be shown to the person as it is.
///
/// `userMessage` names the problem in plain words and never contains notes, OCR text, photo paths or
/// names of areas (privacy principle 6). The CLI prints it on stderr and exits 1; the web shows it on the page.
public protocol CairnError: Error, CustomStringConvertible {
    /// One or two plain sentences saying what went wrong and, where it helps, what to do.
    var userMessage: String { get }
    /// What kind of refusal this is (declared once, on the error's own type). `refusedInput` unless the type says
    /// otherwise: most of Cairn's errors are a value or a file it does not accept.
    var errorKind: ErrorKind { get }
}

extension CairnError {
    public var description: String { userMessage }
    public var errorKind: ErrorKind { .refusedInput }
}
