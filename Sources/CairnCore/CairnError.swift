/// An error that can be shown to the person as it is.
///
/// `userMessage` names the problem in plain words and never contains notes, OCR text, photo paths or
/// names of areas (privacy principle 6). The CLI prints it on stderr and exits 1; the web shows it on the page.
public protocol CairnError: Error, CustomStringConvertible {
    /// One or two plain sentences saying what went wrong and, where it helps, what to do.
    var userMessage: String { get }
}

extension CairnError {
    public var description: String { userMessage }
}
