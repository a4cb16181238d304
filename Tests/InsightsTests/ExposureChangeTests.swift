import CairnCore
import Foundation
import Insights
import Regimen
import Testing

struct ExposureChangeTests {
    let detector = ExposureChangeDetector()

    @Test func anEmptyLedgerHasNoChanges() {
        #expect(detector.changes(in: [], schedules: [], asOf: Fixture.day("2026-03-01")).isEmpty)
    }

    @Test func theFirstTakenDoseIsAStart() throws {
        let changes = detector.changes(in: Fixture.daily("2026-03-01", "2026-03-20"), schedules: [], asOf: Fixture.day("2026-03-20"))
        #expect(changes.count == 1)
        let start = try #require(changes.first)
        #expect(start.kind == .start)
        #expect(start.day == Fixture.day("2026-03-01"))
        #expect(start.id == "p-magnesium|start|2026-03-01")
        #expect(start.description == "starting Magnesium")
    }

    @Test func plansAloneAndSkippedOrCorrectedRecordsAreNotIntake() {
        let schedules = [Fixture.schedule("2026-03-01")]
        let asOf = Fixture.day("2026-03-20")
        let days = (0..<20).map { Fixture.day("2026-03-01").adding(days: $0) }
        // The control: twenty days logged as taken are an established start.
        #expect(detector.changes(in: days.map { Fixture.entry($0) }, schedules: schedules, asOf: asOf).map(\.kind) == [.start])
        // The same twenty days skipped, or taken and then corrected, are no intake; nor is the plan alone.
        let skipped = days.map { Fixture.entry($0, status: .skipped) }
        let corrected = days.map { Fixture.entry($0, supersededBy: IntakeRecordID("later-\($0)")) }
        #expect(detector.changes(in: skipped, schedules: schedules, asOf: asOf).isEmpty)
        #expect(detector.changes(in: corrected, schedules: schedules, asOf: asOf).isEmpty)
        #expect(detector.changes(in: [], schedules: schedules, asOf: asOf).isEmpty)
    }

    @Test func threeScheduledDaysWithoutADoseAreAnInterruption() throws {
        let entries = Fixture.daily("2026-03-01", "2026-03-20") + Fixture.daily("2026-03-24", "2026-04-20")
        let changes = detector.changes(in: entries, schedules: [Fixture.schedule("2026-03-01")], asOf: Fixture.day("2026-04-20"))
        #expect(changes.map(\.kind) == [.start, .interruption])
        #expect(changes[1].day == Fixture.day("2026-03-21"))
        #expect(changes[1].description.contains("3 scheduled days"))
    }

    @Test func twoMissedScheduledDaysAreNotAnInterruption() {
        let entries = Fixture.daily("2026-03-01", "2026-03-20") + Fixture.daily("2026-03-23", "2026-04-20")
        let changes = detector.changes(in: entries, schedules: [Fixture.schedule("2026-03-01")], asOf: Fixture.day("2026-04-20"))
        #expect(changes.map(\.kind) == [.start])
    }

    @Test func aGapWithoutScheduleIsADeactivationAndALaterDoseARestart() {
        let entries = Fixture.daily("2026-03-01", "2026-03-31") + Fixture.daily("2026-05-01", "2026-05-20")
        let changes = detector.changes(in: entries, schedules: [], asOf: Fixture.day("2026-05-20"))
        #expect(changes.map(\.kind) == [.start, .deactivation, .start])
        #expect(changes[1].day == Fixture.day("2026-04-01"))
        #expect(changes[2].day == Fixture.day("2026-05-01"))
        #expect(changes[2].description == "starting Magnesium again")
    }

    @Test func aLastingDoseChangeIsFoundAndSmallDriftIsNot() throws {
        let doubled = Fixture.daily("2026-03-01", "2026-04-10") + Fixture.daily("2026-04-11", "2026-05-20", servings: 2)
        let changes = detector.changes(in: doubled, schedules: [], asOf: Fixture.day("2026-05-20"))
        #expect(changes.map(\.kind) == [.start, .doseChange])
        #expect(changes[1].day == Fixture.day("2026-04-11"))
        #expect(changes[1].description == "the dose of Magnesium going from 1 to 2 servings a dose day")

        let drift = Fixture.daily("2026-03-01", "2026-04-10") + Fixture.daily("2026-04-11", "2026-05-20", servings: Decimal(string: "0.9")!)
        #expect(detector.changes(in: drift, schedules: [], asOf: Fixture.day("2026-05-20")).map(\.kind) == [.start])
    }

    @Test func dailyToEveryOtherDayIsAFrequencyChange() throws {
        let entries = Fixture.daily("2026-03-01", "2026-04-10") + Fixture.daily("2026-04-11", "2026-05-20", step: 2)
        let changes = detector.changes(in: entries, schedules: [], asOf: Fixture.day("2026-05-20"))
        #expect(changes.map(\.kind) == [.start, .frequencyChange])
        let change = try #require(changes.last)
        #expect(abs(Fixture.day("2026-04-11").days(to: change.day)) <= 1)
    }

    @Test func scatteredMissedDosesAreNotAFrequencyChange() {
        // Five single missed days within two weeks: fewer dose days, but still a daily rhythm.
        let missed: Set<String> = ["2026-04-02", "2026-04-05", "2026-04-08", "2026-04-11", "2026-04-14"]
        let entries = Fixture.daily("2026-03-01", "2026-05-20").filter { !missed.contains($0.localDay.description) }
        #expect(detector.changes(in: entries, schedules: [], asOf: Fixture.day("2026-05-20")).map(\.kind) == [.start])
    }

    @Test func morningToEveningIsATimingChangeButATripIsNot() throws {
        let moved = Fixture.daily("2026-03-01", "2026-04-10", hour: 8) + Fixture.daily("2026-04-11", "2026-05-20", hour: 20)
        let changes = detector.changes(in: moved, schedules: [], asOf: Fixture.day("2026-05-20"))
        #expect(changes.map(\.kind) == [.start, .timingChange])
        #expect(changes[1].day == Fixture.day("2026-04-11"))
        #expect(changes[1].description == "Magnesium moving from the morning to the evening")

        // Same instants in UTC, but the person flew to Tokyo: 08:00 UTC is 17:00 local there.
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let trip =
            Fixture.daily("2026-03-01", "2026-04-10", hour: 8)
            + Fixture.daily("2026-04-11", "2026-05-20", hour: 17, zone: tokyo)
        #expect(detector.changes(in: trip, schedules: [], asOf: Fixture.day("2026-05-20")).map(\.kind) == [.start])
    }

    @Test func changesWithinThreeDaysCollapseIntoOneTransition() throws {
        // Dose doubled and moved to the evening on the same day.
        let entries = Fixture.daily("2026-03-01", "2026-04-10", hour: 8) + Fixture.daily("2026-04-11", "2026-05-20", hour: 20, servings: 2)
        let changes = detector.changes(in: entries, schedules: [], asOf: Fixture.day("2026-05-20"))
        #expect(changes.count == 2)
        let transition = try #require(changes.last)
        #expect(transition.kind == .doseChange)
        #expect(transition.kinds == [.doseChange, .timingChange])
    }

    @Test func productsAreKeptApartAndOrderedByDay() {
        let other = ProductID("p-vitamin-d")
        let entries = Fixture.daily("2026-03-05", "2026-03-30", product: other, name: "Vitamin D") + Fixture.daily("2026-03-01", "2026-03-30")
        let changes = detector.changes(in: entries, schedules: [], asOf: Fixture.day("2026-03-30"))
        #expect(changes.map(\.productName) == ["Magnesium", "Vitamin D"])
        #expect(changes.allSatisfy { $0.kind == .start })
    }

    @Test func recordsAfterTheAsOfDayAreIgnored() {
        let changes = detector.changes(in: Fixture.daily("2026-03-10", "2026-03-20"), schedules: [], asOf: Fixture.day("2026-03-01"))
        #expect(changes.isEmpty)
    }

    @Test func aChangeRoundTripsThroughJSON() throws {
        let change = detector.changes(in: Fixture.daily("2026-03-01", "2026-03-20"), schedules: [], asOf: Fixture.day("2026-03-20"))[0]
        let data = try JSONEncoder().encode(change)
        #expect(String(decoding: data, as: UTF8.self).contains("\"day\":\"2026-03-01\""))
        #expect(try JSONDecoder().decode(ExposureChange.self, from: data) == change)
    }

    @Test func aSingleAsNeededDoseIsNotAStartNorItsEndAStop() {
        let one = [Fixture.entry(Fixture.day("2026-03-05"), name: "Ibuprofen")]
        #expect(detector.changes(in: one, schedules: [], asOf: Fixture.day("2026-04-30")).isEmpty)
        let scattered = [
            Fixture.entry(Fixture.day("2026-03-05")), Fixture.entry(Fixture.day("2026-03-12")),
            Fixture.entry(Fixture.day("2026-04-20")),
        ]
        #expect(detector.changes(in: scattered, schedules: [], asOf: Fixture.day("2026-05-30")).isEmpty)
    }

    @Test func aStartIsRecognisedOnceItsFourthDoseDayIsLogged() {
        let three = Fixture.daily("2026-03-01", "2026-03-03")
        #expect(detector.changes(in: three, schedules: [], asOf: Fixture.day("2026-03-03")).isEmpty)
        let four = Fixture.daily("2026-03-01", "2026-03-04")
        #expect(detector.changes(in: four, schedules: [], asOf: Fixture.day("2026-03-04")).map(\.kind) == [.start])
    }
}
