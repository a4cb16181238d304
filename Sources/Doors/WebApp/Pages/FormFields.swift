/// A refused field, the same way on every form: its messages sit beside it (class `field-error`), the field says it
/// is invalid and is described by them (`aria-invalid`, `aria-describedby`), and the first refused field of a page
/// takes the focus when the page loads (`autofocus`, no script needed), so a screen reader reads it at once.
enum FormField {
    /// Said beside the second field when a new passphrase typed twice differs (the vault's lock, a backup).
    static let passphrasesDiffer = "The two passphrases differ. Type the same one twice."

    /// The attributes of field `id`: `aria-describedby` naming its help (when `help`) and its error, and
    /// `aria-invalid` and, when `first`, `autofocus` while it has errors.
    static func attributes(_ id: String, errors: [String], help: Bool = false, first: Bool = false) -> HTML {
        let described = [help ? "\(id)-help" : nil, errors.isEmpty ? nil : "\(id)-error"].compactMap { $0 }
        let describedBy: HTML = described.isEmpty ? "" : " aria-describedby=\"\(described.joined(separator: " "))\""
        let invalid: HTML = errors.isEmpty ? "" : " aria-invalid=\"true\"" + (first ? " autofocus" : "")
        return describedBy + invalid
    }

    /// The messages about field `id`, one paragraph (a line each), or nothing.
    static func errors(_ messages: [String], _ id: String) -> HTML {
        messages.isEmpty
            ? "" : "<p class=\"field-error\" id=\"\(id)-error\">\(HTML.join(messages.map { message -> HTML in "\(message)" }, separator: "<br>"))</p>"
    }

    /// The line above a refused form: how many fields need a change, each a link to its field. Announced
    /// (`role="alert"`) when the page is shown.
    static func summary(_ fields: [(id: String, label: String)]) -> HTML {
        guard !fields.isEmpty else { return "" }
        let links = fields.map { field -> HTML in "<a href=\"#\(field.id)\">\(field.label)</a>" }
        let count = fields.count == 1 ? "One field needs" : "\(fields.count) fields need"
        return
            "<p class=\"form-error\" role=\"alert\" id=\"form-problems\">Nothing was saved. \(count) a change: \(HTML.join(links, separator: ", ")).</p>"
    }
}
