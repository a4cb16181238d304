import Foundation
import Testing

@testable import HealthExport

@Suite struct HealthRecordTests {
    @Test func parsesExportTimestampsWithTheirOffsets() throws {
        let east = try #require(HealthTimestamp(exportText: "2024-01-01 01:01:36 +0200"))
        #expect(east.utcSeconds == 1_704_063_696)
        #expect(east.offsetSeconds == 7200)
        let west = try #require(HealthTimestamp(exportText: "2023-12-31 17:31:36 -0530"))
        #expect(west.utcSeconds == east.utcSeconds)
        #expect(west.offsetSeconds == -19_800)
        #expect(HealthTimestamp(exportText: "2024-02-29 00:00:00 +0000") != nil)
    }

    @Test func refusesMalformedTimestamps() {
        for text in [
            "", "2024-01-01", "2024-01-01T01:01:36+0200", "2024-02-30 00:00:00 +0000", "2024-01-01 24:00:00 +0000",
            "2024-01-01 01:01:36 +02:00", "2024-01-01 01:01:36 +1900", "2024-01-0a 01:01:36 +0200",
        ] {
            #expect(HealthTimestamp(exportText: text) == nil, "\(text)")
        }
    }

    @Test func anOffsetBeyondFourteenHoursIsNotADate() {
        #expect(HealthTimestamp(exportText: "2024-01-01 01:01:36 +1400")?.offsetSeconds == 50_400)
        #expect(HealthTimestamp(exportText: "2024-01-01 01:01:36 -1400")?.offsetSeconds == -50_400)
        for text in ["2024-01-01 01:01:36 +1401", "2024-01-01 01:01:36 -1430", "2024-01-01 01:01:36 +2500", "2024-01-01 01:01:36 +0160"] {
            #expect(HealthTimestamp(exportText: text) == nil, "\(text)")
        }
    }

    @Test func readsSleepValuesAsNumbersOrIdentifiers() {
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisInBed") == .inBed)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAsleep") == .asleepUnspecified)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAsleepUnspecified") == .asleepUnspecified)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAwake") == .awake)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAsleepCore") == .asleepCore)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAsleepDeep") == .asleepDeep)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisAsleepREM") == .asleepREM)
        #expect(HealthSleepValue(exportText: "5") == .asleepREM)
        #expect(HealthSleepValue(exportText: "0") == .inBed)
        #expect(HealthSleepValue(exportText: "6") == nil)
        #expect(HealthSleepValue(exportText: "HKCategoryValueSleepAnalysisNap") == nil)
        #expect(!HealthSleepValue.inBed.isAsleep && !HealthSleepValue.awake.isAsleep && HealthSleepValue.asleepDeep.isAsleep)
    }

    @Test func mapsKindsToTheirHealthKitIdentifiers() {
        for kind in HealthRecordKind.allCases {
            guard let identifier = kind.typeIdentifier else { continue }
            #expect(HealthRecordKind(typeIdentifier: identifier) == kind)
        }
        #expect(HealthRecordKind.heartRate.typeIdentifier == nil)
        #expect(HealthRecordKind(typeIdentifier: "HKQuantityTypeIdentifierHeartRate") == nil)
        #expect(HealthRecordKind(typeIdentifier: "HKQuantityTypeIdentifierHeartRateVariabilityRMSSD") == nil)
    }

    @Test func identityChangesWithEveryFieldAndNotOtherwise() throws {
        let start = try #require(HealthTimestamp(exportText: "2024-01-01 01:00:00 +0200"))
        let end = try #require(HealthTimestamp(exportText: "2024-01-01 01:05:00 +0200"))
        func make(
            name: String = "Watch", version: String = "10", device: String = "", unit: String = "count", value: Double = 5,
            created: HealthTimestamp? = nil, zone: String? = nil
        ) -> HealthRecord {
            HealthRecord(
                kind: .stepCount, sourceName: name, sourceVersion: version, device: device, unit: unit, value: value,
                creationDate: created, startDate: start, endDate: end, timeZoneIdentifier: zone)!
        }
        let base = make()
        #expect(base.identityBytes == make().identityBytes)
        let variants = [
            make(name: "Watch2"), make(version: "11"), make(device: "d"), make(unit: "km"), make(value: 6),
            make(created: end), make(zone: "Europe/Paris"), make(name: "Watch1", version: "0"),
        ]
        for variant in variants { #expect(variant.identityBytes != base.identityBytes) }
        // Length prefixes: moving text between fields changes the identity.
        #expect(make(name: "ab", version: "c").identityBytes != make(name: "a", version: "bc").identityBytes)
        #expect(HealthRecord(kind: .stepCount, sourceName: "x", unit: "count", value: 1, creationDate: nil, startDate: end, endDate: start) == nil)
    }
}
