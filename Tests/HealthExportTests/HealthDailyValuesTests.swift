import Foundation
import Regimen
import Testing

@testable import HealthExport

@Suite struct HealthDailyValuesTests {
    static let watch = HealthSource(name: "Sam's Apple Watch", device: "<<HKDevice>, name:Apple Watch, model:Watch, hardware:Watch6,7>")
    static let phone = HealthSource(name: "Sam's iPhone", device: "<<HKDevice>, name:iPhone, model:iPhone, hardware:iPhone14,2>")
    static let app = HealthSource(name: "SleepApp", device: "")
    static let sources = [watch, phone, app]
    static let w = 0, p = 1, a = 2

    private func stamp(_ text: String) -> HealthTimestamp { HealthTimestamp(exportText: text)! }
    private func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

    private func sample(
        _ kind: HealthRecordKind, _ source: Int, _ value: Double, _ start: String, _ end: String? = nil,
        zone: String? = nil
    ) -> HealthSample {
        HealthSample(kind: kind, source: source, value: value, start: stamp(start), end: stamp(end ?? start), timeZoneIdentifier: zone)
    }

    private func sleep(_ value: HealthSleepValue, _ source: Int, _ start: String, _ end: String, zone: String? = nil) -> HealthSample {
        sample(.sleepAnalysis, source, Double(value.rawValue), start, end, zone: zone)
    }

    /// The sample export's "in bed" record (issue 40 item 8): written as 2024-01-01 00:55:28-00:56:53 +0200, the
    /// zone of the phone when the file was exported; its HKTimeZone says the person was in Amsterdam (UTC+1 in
    /// winter), where it was 23:55-23:56 on 31 December. The session ends on 31 December where it was lived, so it
    /// counts there; the watch's asleep piece (03:27 +0200, 02:27 in Amsterdam) counts on 1 January.
    @Test func aSessionCountsOnTheDayItEndsWhereThePersonWasNotInTheExportsOffset() {
        let values = HealthDailyValues.compute(
            [
                sleep(.inBed, Self.p, "2024-01-01 00:55:28 +0200", "2024-01-01 00:56:53 +0200", zone: "Europe/Amsterdam"),
                sleep(.asleepCore, Self.w, "2024-01-01 03:27:53 +0200", "2024-01-01 03:40:23 +0200", zone: "Europe/Amsterdam"),
            ], sources: Self.sources)
        #expect(values["sleep_in_bed"]?.keys.map(\.description) == ["2023-12-31"])
        #expect(values["sleep_asleep"]?.keys.map(\.description) == ["2024-01-01"])
        let noZone = HealthDailyValues.compute(
            [sleep(.inBed, Self.p, "2024-01-01 00:55:28 +0200", "2024-01-01 00:56:53 +0200")], sources: Self.sources)
        #expect(noZone["sleep_in_bed"]?.keys.map(\.description) == ["2024-01-01"], "without HKTimeZone, the written offset decides")
    }

    @Test func emptyInputHasNoMetrics() {
        #expect(HealthDailyValues.compute([], sources: []).isEmpty)
    }

    @Test func watchStepsWinWhereBothCoverAndPhoneFillsTheRest() {
        let samples = [
            // 08:00-09:00 both: the watch counts 1000, the phone's 1200 for the same hour is not added.
            sample(.stepCount, Self.w, 1000, "2024-03-01 08:00:00 +0100", "2024-03-01 09:00:00 +0100"),
            sample(.stepCount, Self.p, 1200, "2024-03-01 08:00:00 +0100", "2024-03-01 09:00:00 +0100"),
            // 12:00-12:30 phone only (watch off the wrist): counted.
            sample(.stepCount, Self.p, 300, "2024-03-01 12:00:00 +0100", "2024-03-01 12:30:00 +0100"),
            // 09:30-10:30 phone, half of it covered by the watch 10:00-10:30: half of the phone's 400 counts.
            sample(.stepCount, Self.w, 500, "2024-03-01 10:00:00 +0100", "2024-03-01 10:30:00 +0100"),
            sample(.stepCount, Self.p, 400, "2024-03-01 09:30:00 +0100", "2024-03-01 10:30:00 +0100"),
        ]
        let steps = HealthDailyValues.compute(samples, sources: Self.sources)["steps"]
        #expect(steps == [day("2024-03-01"): 1000 + 300 + 500 + 200])
    }

    @Test func withoutAWatchTheSourceWithMostCoverageLeads() {
        let samples = [
            sample(.stepCount, Self.p, 100, "2024-03-01 08:00:00 +0000", "2024-03-01 10:00:00 +0000"),
            sample(.stepCount, Self.a, 999, "2024-03-01 08:00:00 +0000", "2024-03-01 08:30:00 +0000"),
        ]
        #expect(HealthDailyValues.ranked(samples, sources: Self.sources, byDuration: true) == [Self.p, Self.a])
        #expect(HealthDailyValues.compute(samples, sources: Self.sources)["steps"] == [day("2024-03-01"): 100])
    }

    @Test func stepsCountOnTheLocalDayTheyStartInTheirOwnOffset() {
        let samples = [
            // 23:30 on 1 March in New York is 04:30 UTC on 2 March.
            sample(.stepCount, Self.p, 50, "2024-03-01 23:30:00 -0500", "2024-03-01 23:45:00 -0500"),
            sample(.stepCount, Self.p, 70, "2024-03-02 00:10:00 -0500", "2024-03-02 00:20:00 -0500"),
        ]
        #expect(HealthDailyValues.compute(samples, sources: Self.sources)["steps"] == [day("2024-03-01"): 50, day("2024-03-02"): 70])
    }

    @Test func theRecordsTimeZoneDecidesTheDayOverTheExportOffset() {
        // Exported from Amsterdam (+0100) but recorded in New York: 02:00 +0100 on 2 March is 20:00 on 1 March there.
        let samples = [
            sample(.restingHeartRate, Self.w, 55, "2024-03-02 02:00:00 +0100", zone: "America/New_York"),
            sample(.restingHeartRate, Self.w, 60, "2024-03-02 02:00:00 +0100", zone: "Not/AZone"),
        ]
        let values = HealthDailyValues.compute(samples, sources: Self.sources)["resting_heart_rate"]
        #expect(values == [day("2024-03-01"): 55, day("2024-03-02"): 60])
    }

    @Test func pointMetricsTakeTheMeanOfTheLeadingSourceOfTheDay() {
        let samples = [
            sample(.restingHeartRate, Self.w, 50, "2024-03-01 07:00:00 +0000"),
            sample(.restingHeartRate, Self.w, 54, "2024-03-01 19:00:00 +0000"),
            sample(.restingHeartRate, Self.a, 90, "2024-03-01 08:00:00 +0000"),
            sample(.restingHeartRate, Self.a, 70, "2024-03-02 08:00:00 +0000"),
            sample(.heartRateVariabilitySDNN, Self.w, 40, "2024-03-01 03:00:00 +0000"),
            sample(.heartRateVariabilitySDNN, Self.w, 60, "2024-03-01 04:00:00 +0000"),
        ]
        let values = HealthDailyValues.compute(samples, sources: Self.sources)
        #expect(values["resting_heart_rate"] == [day("2024-03-01"): 52, day("2024-03-02"): 70])
        #expect(values["hrv_sdnn"] == [day("2024-03-01"): 50])
    }

    @Test func bodyMassIsTheLastOfTheDayInKilograms() throws {
        let scale = HealthSource(name: "Scale", device: "")
        let early = try #require(
            HealthRecord(
                kind: .bodyMass, sourceName: "Scale", unit: "kg", value: 80, creationDate: nil,
                startDate: stamp("2024-03-01 07:00:00 +0000"), endDate: stamp("2024-03-01 07:00:00 +0000")))
        let late = try #require(
            HealthRecord(
                kind: .bodyMass, sourceName: "Scale", unit: "lb", value: 100, creationDate: nil,
                startDate: stamp("2024-03-01 21:00:00 +0000"), endDate: stamp("2024-03-01 21:00:00 +0000")))
        let samples = [HealthSample(late, source: 0)!, HealthSample(early, source: 0)!]
        let values = HealthDailyValues.compute(samples, sources: [scale])
        #expect(values["body_mass"] == [day("2024-03-01"): 45.359237])
        #expect(BodyMassUnit.kilograms(1, unit: "st") == 14 * 0.45359237)
        #expect(BodyMassUnit.kilograms(1500, unit: "g") == 1.5)
        #expect(BodyMassUnit.kilograms(1, unit: "oz") == nil)
    }

    @Test func sleepStagesCountAsAsleepAndInBedIsSeparate() {
        let samples = [
            sleep(.inBed, Self.p, "2024-03-01 22:30:00 +0100", "2024-03-02 07:00:00 +0100"),
            sleep(.asleepCore, Self.w, "2024-03-01 23:00:00 +0100", "2024-03-02 01:00:00 +0100"),
            sleep(.awake, Self.w, "2024-03-02 01:00:00 +0100", "2024-03-02 01:30:00 +0100"),
            sleep(.asleepDeep, Self.w, "2024-03-02 01:30:00 +0100", "2024-03-02 03:00:00 +0100"),
            sleep(.asleepREM, Self.w, "2024-03-02 03:00:00 +0100", "2024-03-02 04:00:00 +0100"),
            sleep(.asleepCore, Self.w, "2024-03-02 04:00:00 +0100", "2024-03-02 06:30:00 +0100"),
        ]
        let values = HealthDailyValues.compute(samples, sources: Self.sources)
        #expect(values["sleep_asleep"] == [day("2024-03-02"): 7])
        #expect(values["sleep_in_bed"] == [day("2024-03-02"): 8.5])
    }

    @Test func overlappingSleepFromAnotherSourceAddsOnlyUncoveredTime() {
        let samples = [
            sleep(.asleepCore, Self.w, "2024-03-01 23:00:00 +0000", "2024-03-02 03:00:00 +0000"),
            sleep(.awake, Self.w, "2024-03-02 03:00:00 +0000", "2024-03-02 04:00:00 +0000"),
            sleep(.asleepCore, Self.w, "2024-03-02 04:00:00 +0000", "2024-03-02 06:00:00 +0000"),
            // The app says asleep all night and an extra hour after the watch's last stage.
            sleep(.asleepUnspecified, Self.a, "2024-03-01 23:00:00 +0000", "2024-03-02 07:00:00 +0000"),
        ]
        let values = HealthDailyValues.compute(samples, sources: Self.sources)
        // Watch: 4 h + 2 h; the app adds only 06:00-07:00 (its 03:00-04:00 is the watch's awake time).
        #expect(values["sleep_asleep"] == [day("2024-03-02"): 7])
    }

    @Test func aNapCountsOnItsOwnDayAndANightOnTheMorningItEnds() {
        let samples = [
            sleep(.asleepCore, Self.w, "2024-03-02 14:00:00 +0000", "2024-03-02 14:30:00 +0000"),
            sleep(.asleepCore, Self.w, "2024-03-02 23:00:00 +0000", "2024-03-03 06:00:00 +0000"),
            // Same source again inside the night: union, not double.
            sleep(.asleepUnspecified, Self.w, "2024-03-03 01:00:00 +0000", "2024-03-03 02:00:00 +0000"),
        ]
        let values = HealthDailyValues.compute(samples, sources: Self.sources)
        #expect(values["sleep_asleep"] == [day("2024-03-02"): 0.5, day("2024-03-03"): 7])
        #expect(values["sleep_in_bed"] == nil)
    }

    @Test func intervalSetMeasuresOverlapsAndGaps() {
        var set = IntervalSet()
        set.formUnion([Interval(start: 10, end: 20), Interval(start: 15, end: 30), Interval(start: 40, end: 50)])
        #expect(set.intervals == [Interval(start: 10, end: 30), Interval(start: 40, end: 50)])
        #expect(set.overlap(0, 100) == 30)
        #expect(set.overlap(25, 45) == 10)
        #expect(set.gaps(0, 60) == [Interval(start: 0, end: 10), Interval(start: 30, end: 40), Interval(start: 50, end: 60)])
        #expect(set.contains(10) && !set.contains(30) && !set.contains(35))
    }

    @Test func watchesAreRecognisedByDeviceModelOrName() {
        #expect(Self.watch.isWatch)
        #expect(!Self.phone.isWatch)
        #expect(HealthSource(name: "Sam's Apple Watch", device: "").isWatch)
        #expect(!HealthSource(name: "Watchful app", device: "<<HKDevice>, model:iPhone>").isWatch)
    }
}
