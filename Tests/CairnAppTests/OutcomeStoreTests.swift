import CairnCore
import Foundation
import Outcomes
import Storage
import Testing

@testable import CairnApp

@Test func anOutcomeEntryRowReadsBackAsTheRecordWrittenWithItsCorrection() throws {
    let f = try OutcomeFixture()
    let first = OutcomeEntryID("entry-1")
    let second = OutcomeEntryID("entry-2")
    let at = utc("2026-03-10T08:05:00Z")
    try f.database.write { db in
        let store = OutcomeStore(db)
        try store.insertEntry(
            id: first, metric: "energy", day: day("2026-03-09"), value: 3, note: "tired", importKey: nil,
            supersedes: nil, at: at)
        try store.insertEntry(
            id: second, metric: "energy", day: day("2026-03-09"), value: 4, note: "", importKey: "energy|2026-03-09|1",
            supersedes: first, at: at.addingTimeInterval(60))
    }
    let (old, new, key, current) = try f.database.read { db in
        let store = OutcomeStore(db)
        return (try store.entry(first), try store.entry(second), try store.importKey(of: second), try store.currentValues())
    }
    #expect(
        old
            == OutcomeEntry(
                id: first, metricID: "energy", day: day("2026-03-09"), value: 3, note: "tired", origin: .manual,
                recordedAt: at, supersedes: nil, supersededBy: second))
    #expect(new?.origin == .csvImport && new?.supersedes == first && new?.supersededBy == nil)
    #expect(key == "energy|2026-03-09|1")
    #expect(current.map(\.value) == [4], "a superseded value is not current")
}

@Test func aStoredRowThatNoRecordCanHoldIsRefusedWithoutItsValue() throws {
    let f = try OutcomeFixture()
    try f.database.write { db in
        try db.execute(
            """
            INSERT INTO outcome_entries (id, metric_id, day, value, note, origin, import_key, recorded_at)
            VALUES ('e', 'energy', '2026-02-30', 1, 'private note', 'manual', NULL, '2026-03-10T08:00:00.000Z')
            """)
    }
    do {
        _ = try f.database.read { try OutcomeStore($0).entry(OutcomeEntryID("e")) }
        Issue.record("a day that does not exist was read")
    } catch let error as DatabaseError {
        #expect(!"\(error)".contains("private note") && !"\(error)".contains("2026-02-30"))
    }
}
