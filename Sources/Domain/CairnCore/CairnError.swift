/// An error that can be shown to the person as it is.
///
/// `userMessage` names the problem in plain words and never contains notes, OCR text, photo paths or
/// names of areas (privacy principle 6). The CLI prints it on stderr and exits 1; the web shows it on the page.
public protocol CairnError: Error, CustomStringConvertible {
    /// One or two plain sentences saying what went wrong and, where it helps, what to do.
    var userMessage: String { get }
    /// True when the error says that an identifier names nothing (no such entry, area, product...): the web app
    /// answers it with 404, like an address with no page. False unless the error says otherwise.
    var namesNoRecord: Bool { get }
}

extension CairnError {
    public var description: String { userMessage }
    public var namesNoRecord: Bool { false }
}
