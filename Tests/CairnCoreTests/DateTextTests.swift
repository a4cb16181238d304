import CairnCore
import Foundation
import Testing

private let instant = Date(timeIntervalSince1970: 1_772_438_700)  // 2026-03-02T08:05:00Z

@Test func eachLayoutWritesTheInstantOnTheWallClockOfItsZone() {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    #expect(DateText.string(instant, .day, in: berlin) == "2 Mar 2026")
    #expect(DateText.string(instant, .dayAndTime, in: berlin) == "2 Mar 2026, 09:05")
    #expect(DateText.string(instant, .numericMinute, in: berlin) == "2026-03-02 09:05")
    #expect(DateText.string(instant, .clock, in: berlin) == "09:05")
    #expect(DateText.string(instant, .fileStamp, in: berlin) == "20260302-090500")
    #expect(DateText.utc(instant) == "2026-03-02T08:05:00Z")
    #expect(DateText.string(instant, .numericMinute, in: TimeZone(identifier: "America/Los_Angeles")!) == "2026-03-02 00:05")
}

@Test func aZoneNameThatIsNoZoneIsWrittenInUTC() {
    #expect(DateText.string(instant, .clock, inZoneNamed: "Nowhere/Atlantis") == "08:05")
    #expect(DateText.string(instant, .clock, inZoneNamed: "Asia/Tokyo") == "17:05")
}

@Test func formattersSharedAcrossThreadsWriteTheSameText() async {
    let zones = ["Europe/Berlin", "Asia/Tokyo", "UTC", "America/New_York"].map { TimeZone(identifier: $0)! }
    let expected = zones.map { DateText.string(instant, .dayAndTime, in: $0) }
    let results = await withTaskGroup(of: Bool.self) { group in
        for i in 0..<200 {
            group.addTask {
                let zone = i % zones.count
                return DateText.string(instant, .dayAndTime, in: zones[zone]) == expected[zone]
            }
        }
        var all = true
        for await ok in group { all = all && ok }
        return all
    }
    #expect(results)
}

@Test func isoOffsetWritesTheWallClockWithItsOffsetOnEitherSideOfUTC() {
    let instant = Date(timeIntervalSince1970: 1_772_352_300)  // 2026-03-01T08:05:00Z
    #expect(DateText.isoOffset(instant, in: TimeZone(identifier: "Europe/Berlin")!) == "2026-03-01T09:05:00+01:00")
    #expect(DateText.isoOffset(instant, in: TimeZone(identifier: "America/St_Johns")!) == "2026-03-01T04:35:00-03:30")
    #expect(DateText.isoOffset(instant, in: TimeZone(identifier: "UTC")!) == "2026-03-01T08:05:00+00:00")
    #expect(DateText.isoOffset(Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!) == "1969-12-31T23:59:59+00:00")
}
