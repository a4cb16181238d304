import Foundation

/// The one text format for instants in the database: UTC ISO 8601 with milliseconds, e.g.
/// `2026-11-30T11:34:17.000Z`. Text order is time order. Written and read with integer arithmetic (a
/// formatter or a calendar per row costs more than the query that stores or reads it).
public enum Timestamp {
    /// The stored text for an instant: whole seconds toward the past, milliseconds rounded (at most 999).
    public static func string(from date: Date) -> String {
        let t = date.timeIntervalSince1970
        let whole = t.rounded(.down)
        let millis = min(999, Int(((t - whole) * 1000).rounded()))
        let seconds = Int(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let day = LocalDay(dayNumber: days)
        let (y, m, d) = (day.year, day.month, day.day)
        let inDay = seconds - days * 86_400
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            let b = raw.bindMemory(to: UInt8.self)
            func put(_ value: Int, _ at: Int, _ width: Int) {
                var v = value
                for i in stride(from: at + width - 1, through: at, by: -1) {
                    b[i] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 0, 4)
            b[4] = 45
            put(m, 5, 2)
            b[7] = 45
            put(d, 8, 2)
            b[10] = 84
            put(inDay / 3600, 11, 2)
            b[13] = 58
            put(inDay / 60 % 60, 14, 2)
            b[16] = 58
            put(inDay % 60, 17, 2)
            b[19] = 46
            put(millis, 20, 3)
            b[23] = 90
            return String(decoding: UnsafeBufferPointer(rebasing: b[0..<24]), as: UTF8.self)
        }
    }

    /// The instant for stored text (`YYYY-MM-DDTHH:MM:SS.mmmZ`, read without a formatter), or for other ISO 8601
    /// text with fractional seconds; nil when the text is neither.
    public static func date(from text: String) -> Date? {
        var text = text
        let (stored, fast) = text.withUTF8 { (isStoredLayout($0), parseStored($0)) }
        // Text in the stored layout is read only by the stored rules (no February 30, no 24:00).
        if stored { return fast }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Whether `b` has the stored layout `????-??-??T??:??:??.???Z`.
    private static func isStoredLayout(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b.count == 24 && b[4] == 45 && b[7] == 45 && b[10] == 84 && b[13] == 58 && b[16] == 58 && b[19] == 46 && b[23] == 90
    }

    /// The stored format only.
    private static func parseStored(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard isStoredLayout(b) else { return nil }
        func n(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard let y = n(0, 4), let mo = n(5, 2), let d = n(8, 2), let h = n(11, 2), let mi = n(14, 2), let s = n(17, 2),
            let ms = n(20, 3), let day = LocalDay(year: y, month: mo, day: d), h < 24, mi < 60, s < 60
        else { return nil }
        let seconds = day.dayNumber * 86_400 + h * 3_600 + mi * 60 + s
        return Date(timeIntervalSince1970: Double(seconds) + Double(ms) / 1000)
    }
}
