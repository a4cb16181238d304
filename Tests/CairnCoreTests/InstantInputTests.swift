import CairnCore
import Foundation
import Testing

private func utc(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

@Test func anInstantWithAnOffsetUpToFourteenHoursIsRead() throws {
    let base = 1_773_129_900.0  // 2026-03-10T08:05:00Z
    #expect(try InstantInput.parse("2026-03-10T08:05:00Z").get() == utc(base))
    #expect(try InstantInput.parse("2026-03-10T08:05Z").get() == utc(base))
    #expect(try InstantInput.parse("2026-03-10T09:05+01:00").get() == utc(base))
    #expect(try InstantInput.parse("2026-03-10T09:05:00.250+0100").get() == utc(base + 0.25))
    #expect(try InstantInput.parse("2026-03-10T22:05+14:00").get() == utc(base))
    #expect(try InstantInput.parse("2026-03-09T18:05-14:00").get() == utc(base))
}

@Test func anOffsetBeyondFourteenHoursIsRefusedNeverWrapped() {
    for text in [
        "2026-03-10T09:05+25:00", "2026-03-10T09:05+99:00", "2026-03-10T09:05+14:01", "2026-03-10T09:05-14:30",
        "2026-03-10T09:05:00+1500",
    ] {
        #expect(InstantInput.parse(text) == .failure(.offsetOutOfRange), "\(text)")
    }
}

@Test func aMalformedInstantOrOffsetIsUnreadable() {
    for text in [
        "2026-03-10T09:05+1:00", "2026-03-10T09:05+01:60", "2026-03-10T09:05+01", "2026-03-10T09:05+01:000",
        "2026-03-10T09:05", "2026-03-10 09:05Z", "2026-02-30T09:05Z", "2026-03-10T24:00Z", "2026-03-10T09:05:60Z",
        "2026-03-10T09:05:00.Z", "2026-03-10T09:05ZZ", "2026-03-10T09:05+01:00 ", "",
    ] {
        #expect(InstantInput.parse(text) == .failure(.unreadable), "\(text)")
    }
}

@Test func importsAcceptDatesFrom1900ToTomorrowInThePersonsZone() {
    let zone = TimeZone(identifier: "Pacific/Auckland")!
    let now = utc(1_773_129_900)  // 2026-03-10T08:05Z: 21:05 on the 10th in Auckland
    #expect(ImportDates.latest(now: now, zone: zone) == LocalDay(year: 2026, month: 3, day: 11))
    #expect(ImportDates.accepts(LocalDay(year: 1900, month: 1, day: 1)!, now: now, zone: zone))
    #expect(ImportDates.accepts(LocalDay(year: 2026, month: 3, day: 11)!, now: now, zone: zone))
    #expect(!ImportDates.accepts(LocalDay(year: 2026, month: 3, day: 12)!, now: now, zone: zone))
    #expect(!ImportDates.accepts(LocalDay(year: 1899, month: 12, day: 31)!, now: now, zone: zone))
    #expect(!ImportDates.accepts(LocalDay(year: 1, month: 1, day: 1)!, now: now, zone: zone))
    #expect(!ImportDates.accepts(LocalDay(year: 9999, month: 12, day: 31)!, now: now, zone: zone))
    let instants = ImportDates.instants(now: now, zone: zone)
    // The end of the 11th in Auckland (UTC+13 in March) is 11:00 UTC on the 11th.
    #expect(instants.upperBound == utc(1_773_129_900 + 86_400 + 10_500))
    #expect(instants.contains(instants.upperBound.addingTimeInterval(-1)) && !instants.contains(instants.upperBound))
}
