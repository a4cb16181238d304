import Foundation

/// The one rule for text a person gives Cairn as a name or a note (areas, products and their ingredients,
/// metric definitions, Skin, Smile and outcome notes, an area's guidance), applied by every service that stores
/// one, whichever door it came through.
///
/// Control characters (Unicode category Cc: U+0000–U+001F, U+007F–U+009F) are refused, never stripped: an
/// escape code in a note would clear a terminal or set its title when the CLI prints it, a lone carriage return
/// can overwrite a terminal line, and a NUL byte cuts the text short in SQLite's own functions. Notes may hold
/// newlines and tabs; a carriage return before a newline (browsers send a text area's lines as CR LF) becomes a
/// newline. A note is stored without surrounding white space and holds at most `maximumNoteLength` characters.
public enum TextInput {
    /// The longest note, in characters (the web fields say the same).
    public static let maximumNoteLength = 500

    /// `text` unchanged, or `TextInputError.controlCharacter(field:)` when it holds a control character.
    @discardableResult
    public static func name(_ text: String, field: String) throws -> String {
        guard !text.unicodeScalars.contains(where: isControl) else { throw TextInputError.controlCharacter(field: field) }
        return text
    }

    /// The note as stored: CR LF line ends made LF, surrounding white space trimmed. Throws
    /// `TextInputError.controlCharacter(field:)` for a control character other than a newline or a tab (a lone CR
    /// too), `TextInputError.tooLong(field:maximum:)` over `maximumNoteLength` characters.
    @discardableResult
    public static func note(_ text: String, field: String) throws -> String {
        let lines = text.contains("\r") ? text.replacingOccurrences(of: "\r\n", with: "\n") : text
        guard !lines.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && isControl($0) }) else {
            throw TextInputError.controlCharacter(field: field)
        }
        let clean = lines.trimmingCharacters(in: .whitespacesAndNewlines)
        guard clean.count <= maximumNoteLength else { throw TextInputError.tooLong(field: field, maximum: maximumNoteLength) }
        return clean
    }

    /// Whether `scalar` is a control character (C0, DEL or C1).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}

/// Text refused by `TextInput`. The message names the field, never its content.
public enum TextInputError: CairnError, Equatable {
    /// `field` (e.g. "area name", "note") holds a control character.
    case controlCharacter(field: String)
    /// `field` (a note) is longer than `maximum` characters.
    case tooLong(field: String, maximum: Int)

    public var userMessage: String {
        switch self {
        case .controlCharacter(let field):
            return "The \(field) contains a control character (such as an escape code or a NUL byte), which Cairn does not store. Remove it and try again. Nothing was saved."
        case .tooLong(let field, let maximum):
            return "The \(field) is longer than \(maximum) characters. Shorten it and try again. Nothing was saved."
        }
    }
}
