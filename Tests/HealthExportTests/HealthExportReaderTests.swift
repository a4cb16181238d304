import CairnCore
import CairnTestSupport
import Foundation
import Testing

@testable import HealthExport

@Suite struct HealthExportReaderTests {
    private func read(_ url: URL) throws -> (HealthReadSummary, [HealthRecord]) {
        var records: [HealthRecord] = []
        let summary = try HealthExportReader().read(contentsOf: url) { records.append($0) }
        return (summary, records)
    }

    private func read(xml: String) throws -> (HealthReadSummary, [HealthRecord]) {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = scratch.file("export.xml")
        try HealthXML.write(xml, to: url)
        return try read(url)
    }

    @Test func readsTheRealSampleKeepingSleepAndSkippingOtherTypes() throws {
        let (summary, records) = try read(HealthXML.sample)
        #expect(records.count == 2)
        #expect(summary.recordsRead == 2)
        #expect(
            summary.skippedByType == [
                "HKQuantityTypeIdentifierHeartRate": 2,
                "HKQuantityTypeIdentifierActiveEnergyBurned": 2,
                "HKQuantityTypeIdentifierAppleExerciseTime": 1,
                "HKQuantityTypeIdentifierAppleStandTime": 1,
            ])
        #expect(summary.warnings.isEmpty)
        let inBed = try #require(records.first)
        #expect(inBed.kind == .sleepAnalysis)
        #expect(inBed.sleepValue == .inBed)
        #expect(inBed.sourceName == "Alexandre's iPhone")
        #expect(inBed.sourceVersion == "17.2.1")
        #expect(inBed.device == "")
        #expect(inBed.timeZoneIdentifier == "Europe/Amsterdam")
        #expect(inBed.startDate == HealthTimestamp(exportText: "2024-01-01 00:55:28 +0200"))
        #expect(inBed.startDate.offsetSeconds == 7200)
        // 2024-01-01 00:55:28 +0200 is 2023-12-31 22:55:28 UTC.
        #expect(inBed.startDate.utcSeconds == 1_704_063_328)
        let core = records[1]
        #expect(core.sleepValue == .asleepCore)
        #expect(core.sourceName == "Alexandre's Apple Watch")
        #expect(summary.fileBytes > 0)
    }

    @Test func readsEveryKeptTypeWithEscapedDeviceAndMetadata() throws {
        let body =
            HealthXML.record(
                "HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", value: "52",
                start: "2024-03-01 07:00:00 +0100", extraMetadata: true)
            + HealthXML.record(
                "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: "ms", value: "48.25",
                start: "2024-03-01 07:05:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", source: HealthXML.phone, unit: "count", value: "120",
                start: "2024-03-01 08:00:00 +0100", end: "2024-03-01 08:05:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierBodyMass", source: (name: "Scale", version: "", device: ""),
                unit: "lb", value: "150", start: "2024-03-01 07:10:00 +0100")
            + HealthXML.record(
                "HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "4",
                start: "2024-03-01 02:00:00 +0100", end: "2024-03-01 03:00:00 +0100", timeZone: "Europe/Paris")
        let (summary, records) = try read(xml: HealthXML.document(body))
        #expect(summary.warnings.isEmpty)
        #expect(records.map(\.kind) == [.restingHeartRate, .heartRateVariabilitySDNN, .stepCount, .bodyMass, .sleepAnalysis])
        #expect(records[0].device == HealthXML.watch.device)
        #expect(records[0].timeZoneIdentifier == nil)
        #expect(records[1].value == 48.25)
        #expect(records[2].endDate.utcSeconds - records[2].startDate.utcSeconds == 300)
        #expect(records[3].unit == "lb")
        #expect(records[3].sourceVersion == "")
        #expect(records[4].sleepValue == .asleepDeep)
        #expect(records[4].unit == "")
        #expect(records[4].timeZoneIdentifier == "Europe/Paris")
    }

    @Test func readsTheSameRecordsFromAZip() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let xml = try String(contentsOf: HealthXML.sample, encoding: .utf8)
        let zip = scratch.file("export.zip")
        try HealthXML.writeZip(xml: xml, to: zip, in: scratch)
        var calls: [(Int64, Int64)] = []
        var records: [HealthRecord] = []
        let summary = try HealthExportReader().read(contentsOf: zip, progress: { calls.append(($0, $1)) }, onRecord: { records.append($0) })
        let (plainSummary, plainRecords) = try read(HealthXML.sample)
        #expect(records == plainRecords)
        #expect(summary.skippedByType == plainSummary.skippedByType)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? NSNumber)
        #expect(calls.last.map { $0.0 == size.int64Value && $0.1 == size.int64Value } == true)
    }

    @Test func readsTheSameRecordsFromBytesInMemoryAsFromTheirFile() throws {
        // An upload is read where it is, zip or XML, never written to a temporary file first.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let xml = try String(contentsOf: HealthXML.sample, encoding: .utf8)
        let zip = scratch.file("export.zip")
        try HealthXML.writeZip(xml: xml, to: zip, in: scratch)
        let (_, plainRecords) = try read(HealthXML.sample)
        for file in [zip, HealthXML.sample] {
            let bytes = try Data(contentsOf: file)
            var records: [HealthRecord] = []
            var last: (Int64, Int64)?
            let summary = try HealthExportReader(chunkSize: 4096).read(.bytes(bytes), progress: { last = ($0, $1) }, onRecord: { records.append($0) })
            #expect(records == plainRecords)
            #expect(summary.fileBytes == Int64(bytes.count))
            #expect(last.map { $0.0 == Int64(bytes.count) && $0.1 == Int64(bytes.count) } == true)
        }
        let damaged = try Data(contentsOf: zip).prefix(40)
        #expect(throws: HealthExportError.self) { try HealthExportReader().read(.bytes(damaged)) { _ in } }
    }

    @Test func refusesAZipWithoutExportXML() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("other")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try HealthXML.write("<x/>", to: folder.appendingPathComponent("export_cda.xml"))
        try Tools.run(tool: "zip", ["-q", "-j", scratch.file("e.zip").path, folder.appendingPathComponent("export_cda.xml").path])
        #expect(throws: HealthExportError.noExportInArchive) { try read(scratch.file("e.zip")) }
    }

    @Test func refusesAZipWithTwoExportXMLsBeforeReadingARecord() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let xml = HealthXML.document(HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "10", start: "2024-03-01 08:00:00 +0100"))
        for folder in ["apple_health_export", "copy/apple_health_export"] {
            let dir = scratch.file("two/\(folder)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try HealthXML.write(xml, to: dir.appendingPathComponent("export.xml"))
        }
        let zip = scratch.file("export.zip")
        try Tools.run(tool: "sh", ["-c", "cd '\(scratch.file("two").path)' && zip -q -r '\(zip.path)' apple_health_export copy"])
        var records = 0
        #expect(throws: HealthExportError.severalExportsInArchive(count: 2)) {
            try HealthExportReader().read(contentsOf: zip) { _ in records += 1 }
        }
        #expect(throws: HealthExportError.severalExportsInArchive(count: 2)) {
            try HealthExportReader().read(.bytes(Data(contentsOf: zip))) { _ in records += 1 }
        }
        #expect(records == 0)
        #expect(
            HealthExportError.severalExportsInArchive(count: 2).userMessage.hasPrefix(
                "The zip file holds 2 files named export.xml; an export has exactly one."))
    }

    @Test func recordsDatedOutsideTheImportsRangeAreLeftOutWithTheirLines() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        func steps(_ start: String) -> String {
            HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "10", start: start)
        }
        let body =
            steps("0001-01-01 08:00:00 +0000") + steps("2024-03-01 08:00:00 +0100") + steps("9999-12-31 08:00:00 +0000")
            + steps("2024-03-03 00:00:00 +0000") + steps("1899-12-31 23:59:59 +0000")
        let xml = HealthXML.document(body)
        let url = scratch.file("export.xml")
        try HealthXML.write(xml, to: url)
        let now = Date(timeIntervalSince1970: 1_709_280_000)  // 2024-03-01T08:00Z: tomorrow is the 2nd
        let dates = ImportDates.instants(now: now, zone: TimeZone(identifier: "UTC")!)
        var records: [HealthRecord] = []
        let summary = try HealthExportReader().read(contentsOf: url, dates: dates) { records.append($0) }
        #expect(records.map(\.startDate.utcSeconds) == [1_709_276_400])
        #expect(summary.warnings == [.dateOutOfRange: 4])
        let lines = xml.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains("<Record") }.map { $0.offset + 1 }
        #expect(summary.warningRecordLines[.dateOutOfRange] == [lines[0], lines[2], lines[3], lines[4]])
        // Without bounds (a caller that asks for none), every date is read.
        #expect(try HealthExportReader().read(contentsOf: url) { _ in }.recordsRead == 5)
    }

    @Test func refusesADamagedZip() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let zip = scratch.file("export.zip")
        try HealthXML.writeZip(xml: HealthXML.document(""), to: zip, in: scratch)
        let bytes = try Data(contentsOf: zip)
        try bytes.prefix(40).write(to: zip)
        #expect(throws: HealthExportError.self) { try read(zip) }
    }

    @Test func refusesTruncatedXML() throws {
        let body = String(
            repeating: HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", value: "10",
                start: "2024-03-01 08:00:00 +0100", end: "2024-03-01 08:01:00 +0100"), count: 50)
        let whole = HealthXML.document(body)
        let truncated = String(whole.prefix(whole.utf8.count * 2 / 3))
        #expect(throws: HealthExportError.self) { try read(xml: truncated) }
        do {
            _ = try read(xml: truncated)
        } catch let error as HealthExportError {
            guard case .malformedXML(let line) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(line > 0)
            #expect(!error.userMessage.contains("export.xml"))
        }
    }

    @Test func refusesAFileThatIsNotAnExport() throws {
        #expect(throws: HealthExportError.notAHealthExport) { try read(xml: "<?xml version=\"1.0\"?><html><body/></html>") }
        #expect(throws: HealthExportError.self) { try read(xml: "") }
        #expect(throws: HealthExportError.self) { try read(xml: "not xml at all") }
    }

    @Test func refusesMissingFilesAndFolders() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(throws: HealthExportError.unreadable) { try read(scratch.file("nope.xml")) }
        #expect(throws: HealthExportError.unreadable) { try read(scratch.url) }
    }

    @Test func refusesEntityDeclarationsWithoutExpandingThem() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [
              <!ENTITY a "aaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            ]>
            <HealthData><Record type="&b;" sourceName="x" startDate="2024-03-01 08:00:00 +0100" endDate="2024-03-01 08:00:00 +0100"/></HealthData>
            """
        #expect(throws: HealthExportError.declaresEntities) { try read(xml: laughs) }
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <HealthData><Record type="&secret;" sourceName="x" startDate="2024-03-01 08:00:00 +0100" endDate="2024-03-01 08:00:00 +0100"/></HealthData>
            """
        #expect(throws: HealthExportError.declaresEntities) { try read(xml: external) }
    }

    @Test func countsUnknownTypesByTypeAndKeepsReading() throws {
        let body =
            HealthXML.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "70", start: "2024-03-01 08:00:00 +0100")
            + HealthXML.record(
                "HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "71", start: "2024-03-01 08:01:00 +0100", extraMetadata: true)
            + HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "5", start: "2024-03-01 08:00:00 +0100")
            + HealthXML.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "72", start: "2024-03-01 08:02:00 +0100")
            + HealthXML.record("HKQuantityTypeIdentifierHeartRateVariabilityRMSSD", unit: "ms", value: "40", start: "2024-03-01 08:02:00 +0100")
            + " <Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\"/>\n"
        let (summary, records) = try read(xml: HealthXML.document(body))
        #expect(records.count == 1)
        #expect(summary.skippedByType == ["HKQuantityTypeIdentifierHeartRate": 3, "HKQuantityTypeIdentifierHeartRateVariabilityRMSSD": 1])
        #expect(summary.skippedCount == 4)
    }

    @Test func countsImpossibleValuesPerKindAndKeepsTheRest() throws {
        let at = "2024-03-01 08:00:00 +0100"
        let body =
            HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "-5", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "-1", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierStepCount", value: "12", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", value: "0", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", value: "400", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierRestingHeartRate", unit: "ms", value: "50", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: "ms", value: "-3", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierBodyMass", unit: "kg", value: "0", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierBodyMass", unit: "kg", value: "abc", start: at)
            + HealthXML.record("HKQuantityTypeIdentifierBodyMass", unit: "kg", value: "70", start: "yesterday")
            + HealthXML.record("HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisDreaming", start: at)
            + HealthXML.record("HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "3", start: at, end: "2024-03-01 07:00:00 +0100")
            + HealthXML.record("HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "3", start: at, end: "2024-03-04 08:00:00 +0100")
            + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\" unit=\"count\" value=\"3\"/>\n"
        let (summary, records) = try read(xml: HealthXML.document(body))
        #expect(records.count == 1)
        #expect(
            summary.warnings == [
                .negativeStepCount: 2, .impossibleHeartRate: 2, .unexpectedUnit: 1,
                .impossibleHeartRateVariability: 1, .impossibleBodyMass: 1, .unreadableValue: 2,
                .unreadableDate: 1, .endBeforeStart: 1, .impossibleSleepLength: 1, .missingField: 1,
            ])
        #expect(summary.warningCount == 13)
    }

    @Test func stopsAndRethrowsWhenTheRecordHandlerThrows() throws {
        struct Stop: Error {}
        let scratch = try Scratch()
        defer { scratch.remove() }
        let url = scratch.file("export.xml")
        try HealthXML.write(
            HealthXML.document(
                String(
                    repeating: HealthXML.record(
                        "HKQuantityTypeIdentifierStepCount", value: "5",
                        start: "2024-03-01 08:00:00 +0100"), count: 3)), to: url)
        var seen = 0
        #expect(throws: Stop.self) {
            _ = try HealthExportReader().read(contentsOf: url) { _ in
                seen += 1
                throw Stop()
            }
        }
        #expect(seen == 1)
    }

    @Test func readsInSmallChunksTheSameAsInOne() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var body = ""
        for i in 0..<300 {
            body += HealthXML.record(
                "HKQuantityTypeIdentifierStepCount", source: i % 2 == 0 ? HealthXML.watch : HealthXML.phone,
                value: "\(i)", start: "2024-03-01 08:\(String(format: "%02d", i % 60)):00 +0100")
        }
        let url = scratch.file("export.xml")
        try HealthXML.write(HealthXML.document(body), to: url)
        var small: [HealthRecord] = []
        var large: [HealthRecord] = []
        _ = try HealthExportReader(chunkSize: 1).read(contentsOf: url) { small.append($0) }
        _ = try HealthExportReader(chunkSize: 1 << 20).read(contentsOf: url) { large.append($0) }
        #expect(small.count == 300)
        #expect(small == large)
    }

    @Test func theThreadedReadMatchesTheSequentialOneAndStopsWhenTold() throws {
        struct Stop: Error {}
        let scratch = try Scratch()
        defer { scratch.remove() }
        var body = ""
        for i in 0..<12_000 {
            body += HealthXML.record(
                i % 3 == 0 ? "HKQuantityTypeIdentifierHeartRate" : "HKQuantityTypeIdentifierStepCount",
                value: "\(i)", start: "2024-03-01 08:\(String(format: "%02d", i % 60)):00 +0100")
        }
        let url = scratch.file("export.xml")
        try HealthXML.write(HealthXML.document(body), to: url)
        var threaded: [HealthRecord] = []
        var sequential: [HealthRecord] = []
        let reader = HealthExportReader(chunkSize: 8192)
        let summary = try reader.read(contentsOf: url) { threaded.append($0) }
        let expected = try reader.readSequentially(.file(url), progress: { _, _ in }, onRecord: { sequential.append($0) })
        #expect(threaded.count == 8000)
        #expect(threaded == sequential)
        #expect(summary == expected)
        // Stopping midway (the parser is ahead, waiting on a full queue) ends the read without a hang.
        var seen = 0
        #expect(throws: Stop.self) {
            _ = try reader.read(contentsOf: url) { _ in
                seen += 1
                if seen == 3000 { throw Stop() }
            }
        }
        #expect(seen == 3000)
    }

    @Test func recognisesTheExportMemberOfAnArchive() {
        #expect(HealthExportReader.isExportXML("apple_health_export/export.xml"))
        #expect(HealthExportReader.isExportXML("export.xml"))
        #expect(!HealthExportReader.isExportXML("apple_health_export/export_cda.xml"))
        #expect(!HealthExportReader.isExportXML("apple_health_export/myexport.xml"))
    }
}
