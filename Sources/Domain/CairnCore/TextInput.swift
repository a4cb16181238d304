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
///
/// Names (of areas, products and their brands, ingredients and their forms, metrics and their units, body
/// locations) also refuse format characters (Unicode category Cf: the bidirectional overrides, embeddings and
/// isolates such as U+202E, the zero-width space, non-joiner and joiner, the word joiner, the byte order mark,
/// the soft hyphen, invisible operators, tag characters). A name is shown in lists, matched and told apart from
/// other names: an override can make "Left arm" read as something else in a terminal, and an invisible
/// character makes two names that look the same different names. Every format character is refused in a name,
/// the zero-width joiner of an emoji sequence and the non-joiner some scripts (Persian) use included: a name is
/// a short label that reads the same without them. A name holds at most `maximumNameLength` characters after
/// its surrounding white space (the web fields say the same).
///
/// Notes keep format characters: a note is the person's own prose, where the zero-width joiner holds an emoji
/// sequence together (a family, a flag) and the zero-width non-joiner and joiner are part of how Persian, Arabic
/// and Indic scripts are spelt; refusing them would refuse ordinary writing, and stripping them would change what
/// was written. Where a note is shown (the CLI's output, the pages) it goes through `displayed(_:)`, which writes
/// each format character that could hide or reorder text as `<U+202E>`, so a pasted override can never make a
/// note read differently from what is stored.
public enum TextInput {
    /// The longest note, in characters (the web fields say the same).
    public static let maximumNoteLength = 500

    /// The longest name, in characters, of an area, a product, an ingredient or a metric (and of every other name
    /// `name(_:field:)` checks). The web fields' `maxlength` is this number.
    public static let maximumNameLength = 120

    /// `text` unchanged, or `TextInputError.controlCharacter(field:)` when it holds a control character,
    /// `.formatCharacter(field:)` when it holds a format character (category Cf), `.tooLong(field:maximum:)` when
    /// it is longer than `maximumNameLength` characters without its surrounding white space.
    @discardableResult
    public static func name(_ text: String, field: String) throws -> String {
        try storedName(text, field: field)
        guard !text.unicodeScalars.contains(where: isFormat) else { throw TextInputError.formatCharacter(field: field) }
        // Counting stops past the limit: a name of millions of characters is not walked to the end.
        guard text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(maximumNameLength + 1).count <= maximumNameLength else {
            throw TextInputError.tooLong(field: field, maximum: maximumNameLength)
        }
        return text
    }

    /// The check a name read back from the vault passes: no control character. Names saved by earlier versions
    /// (before format characters and names over `maximumNameLength` were refused) are still read; a change of
    /// such a record goes through `name(_:field:)` again.
    @discardableResult
    public static func storedName(_ text: String, field: String) throws -> String {
        guard !text.unicodeScalars.contains(where: isControl) else { throw TextInputError.controlCharacter(field: field) }
        return text
    }

    /// The note as stored: CR LF line ends made LF, surrounding white space trimmed. Throws
    /// `TextInputError.controlCharacter(field:)` for a control character other than a newline or a tab (a lone CR
    /// too), `TextInputError.tooLong(field:maximum:)` over `maximumNoteLength` characters. Format characters are
    /// kept (see above; `displayed(_:)` shows them).
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

    /// A note (or any stored text) as the CLI prints it and a page shows it: each format character written as
    /// `<U+202E>`, except the ones that are part of ordinary writing and cannot reorder or hide text:
    /// - a zero-width non-joiner or joiner (U+200C, U+200D) between two visible characters (an emoji sequence
    ///   such as 👨‍👩‍👧, a Persian or Indic word); one at either end of the text, or beside white space or another
    ///   format character, joins nothing and is shown escaped;
    /// - tag characters (U+E0020–U+E007F) inside an emoji tag sequence (the flags of England, Scotland, Wales).
    /// The text itself is unchanged; text without format characters is returned as it is.
    public static func displayed(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isFormat) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var inEmojiTagSequence = false
        for (i, scalar) in scalars.enumerated() {
            if !isFormat(scalar) {
                out.append(scalar)
                if scalar.properties.isEmoji && scalar.value > 0xFF {
                    inEmojiTagSequence = true
                } else if !scalar.properties.isEmojiModifier && scalar.value != 0xFE0F {
                    inEmojiTagSequence = false
                }
                continue
            }
            if scalar.value == 0x200C || scalar.value == 0x200D, i > 0, i + 1 < scalars.count,
                isVisible(scalars[i - 1]), isVisible(scalars[i + 1])
            {
                out.append(scalar)
                continue
            }
            if (0xE0020...0xE007F).contains(scalar.value), inEmojiTagSequence {
                out.append(scalar)
                continue
            }
            inEmojiTagSequence = false
            out.append(contentsOf: escaped(scalar).unicodeScalars)
        }
        return String(out)
    }

    /// `<U+202E>`: a scalar written as its code point.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }

    /// Whether `scalar` shows as something: not white space, not a control or format character.
    private static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        !isControl(scalar) && !isFormat(scalar) && !scalar.properties.isWhitespace
    }

    /// Whether `scalar` is a control character (C0, DEL or C1).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }

    /// Whether `scalar` is a format character (Unicode general category Cf).
    public static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xAD && scalar.properties.generalCategory == .format
    }
}

/// Text refused by `TextInput`. The message names the field, never its content.
public enum TextInputError: CairnError, Equatable {
    /// `field` (e.g. "area name", "note") holds a control character.
    case controlCharacter(field: String)
    /// `field` (a name) holds a format character (category Cf: a bidirectional override, a zero-width character).
    case formatCharacter(field: String)
    /// `field` (a name or a note) is longer than `maximum` characters.
    case tooLong(field: String, maximum: Int)

    public var userMessage: String {
        switch self {
        case .controlCharacter(let field):
            return
                "The \(field) contains a control character (such as an escape code or a NUL byte), which Cairn does not store. Remove it and try again. Nothing was saved."
        case .formatCharacter(let field):
            return
                "The \(field) contains an invisible formatting character (such as a right-to-left override or a zero-width space), which Cairn does not store in names. Remove it and try again. Nothing was saved."
        case .tooLong(let field, let maximum):
            return "The \(field) is longer than \(maximum) characters. Shorten it and try again. Nothing was saved."
        }
    }
}
