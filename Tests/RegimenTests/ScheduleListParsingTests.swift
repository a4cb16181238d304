import Testing

@testable import Regimen

@Test func listsOfTimesAndWeekdaysTakeCommasOrSpaces() throws {
    #expect(try TimeSlot.list(parsing: "08:00, 20:30").map(\.description) == ["08:00", "20:30"])
    #expect(try TimeSlot.list(parsing: "0800 9:15").map(\.description) == ["08:00", "09:15"])
    #expect(try TimeSlot.list(parsing: "  ").isEmpty, "no times: as needed")
    #expect(throws: ScheduleError.unreadableTime) { try TimeSlot.list(parsing: "08:00, 25:00") }
    #expect(try Weekday.set(parsing: "mon,Wednesday fri") == [.monday, .wednesday, .friday])
    #expect(throws: ScheduleError.noWeekdays) { try Weekday.set(parsing: "") }
    #expect(throws: ScheduleError.unreadableWeekday) { try Weekday.set(parsing: "mon,mo") }
}
