/// Escaping of text placed into HTML. Every piece of text that is not a literal of our own goes through it.
public enum HTML {
    /// Escapes `& < > " '` so `text` is safe both as element content and inside a quoted attribute.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
