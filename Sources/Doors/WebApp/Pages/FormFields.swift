/// A refused field, the same way on every form: its messages sit beside it (class `field-error`), the field says it
/// is invalid and is described by them (`aria-invalid`, `aria-describedby`), and the first refused field of a page
/// takes the focus when the page loads (`autofocus`, no script needed), so a screen reader reads it at once.
enum FormField {
    /// Said beside the second field when a new passphrase typed twice differs (the vault's lock, a backup).
    static let passphrasesDiffer = "The two passphrases differ. Type the same one twice."

    /// The attributes of field `id`: `aria-describedby` naming its help (when `help`) and its error, and
    /// `aria-invalid` and, when `first`, `autofocus` while it has errors.
    static func attributes(_ id: String, errors: [String], help: Bool = false, first: Bool = false) -> String {
        let described = [help ? "\(id)-help" : nil, errors.isEmpty ? nil : "\(id)-error"].compactMap { $0 }
        var html = described.isEmpty ? "" : " aria-describedby=\"\(described.joined(separator: " "))\""
        if !errors.isEmpty { html += " aria-invalid=\"true\"" + (first ? " autofocus" : "") }
        return html
    }

    /// The messages about field `id`, one paragraph (a line each), or nothing.
    static func errors(_ messages: [String], _ id: String) -> String {
        messages.isEmpty ? "" : "<p class=\"field-error\" id=\"\(id)-error\">\(messages.map(HTML.escape).joined(separator: "<br>"))</p>"
    }

    /// The line above a refused form: how many fields need a change, each a link to its field. Announced
    /// (`role="alert"`) when the page is shown.
    static func summary(_ fields: [(id: String, label: String)]) -> String {
        guard !fields.isEmpty else { return "" }
        let links = fields.map { "<a href=\"#\($0.id)\">\(HTML.escape($0.label))</a>" }
        let count = fields.count == 1 ? "One field needs" : "\(fields.count) fields need"
        return
            "<p class=\"form-error\" role=\"alert\" id=\"form-problems\">Nothing was saved. \(count) a change: \(links.joined(separator: ", ")).</p>"
    }
}
