import CairnCore
import Foundation
import Testing

@Test func timestampsRoundTripAtMillisecondPrecision() {
    let date = Date(timeIntervalSince1970: 1_796_040_000.123)
    let text = Timestamp.string(from: date)
    #expect(text == "2026-11-30T12:00:00.123Z")
    #expect(Timestamp.date(from: text).map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
    #expect(Timestamp.date(from: "not a time") == nil)
}

@Test func timestampsWrittenWithoutAFormatterMatchFoundationsOwnAcrossCenturiesAndBeforeNineteenSeventy() {
    let formatter = ISO8601DateFormatter()  // whole seconds, "Z"
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<2000 {
        // 1900 ... 2200, whole milliseconds (what the stored text can hold).
        let millis = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = millis - seconds * 1000
        let whole = formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
        let text = Timestamp.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
        #expect(text == String(whole.dropLast()) + "." + String(format: "%03d", fraction) + "Z", "\(millis)")
        let read = Timestamp.date(from: text).map { ($0.timeIntervalSince1970 * 1000).rounded() }
        #expect(read == Double(millis), "\(text)")
    }
    // Other ISO 8601 text with fractional seconds still reads; impossible dates and times do not.
    #expect(Timestamp.date(from: "2026-11-30T13:00:00.5+01:00") == Timestamp.date(from: "2026-11-30T12:00:00.500Z"))
    #expect(Timestamp.date(from: "2026-02-30T12:00:00.000Z") == nil)
    #expect(Timestamp.date(from: "2026-11-30T24:00:00.000Z") == nil)
}

@Test func localDaysParseOnlyTheCalendarDateForm() {
    #expect(LocalDay(parsing: "2024-02-29") == LocalDay(year: 2024, month: 2, day: 29))
    for bad in ["2023-02-29", "2024-2-29", "24-02-29", "2024-02-29 ", "２０２４-02-29", "2024/02/29", "", "2024-13-01"] {
        #expect(LocalDay(parsing: bad) == nil, "\(bad)")
    }
    #expect(LocalDay(dayNumber: LocalDay(year: 1969, month: 12, day: 31)!.dayNumber) == LocalDay(year: 1969, month: 12, day: 31))
}

@Test func orderedIdentifiersAreVersionSevenUUIDsInIncreasingOrder() {
    typealias ID = Identifier<Never>
    let start = Date(timeIntervalSince1970: 1_796_040_000.123)
    let ids = (0..<1000).map { ID.ordered(start: start, seed: 0x1234_5678_9ABC_DEF, index: $0).rawValue }
    #expect(ids == ids.sorted())
    #expect(Set(ids).count == ids.count)
    for id in ids.prefix(3) {
        let uuid = UUID(uuidString: id)
        #expect(uuid != nil && uuid!.uuidString.lowercased() == id)
        #expect(Array(id)[14] == "7")  // the version
        #expect("89ab".contains(Array(id)[19]))  // the variant
    }
    #expect(ids[0].hasPrefix("01"))  // 1_796_040_000_123 ms = 0x01a2...
    #expect(ID.ordered(start: start, seed: 1, index: 0) != ID.ordered(start: start, seed: 2, index: 0))
}
