import CairnCore
import Foundation
import Testing

@testable import Storage

@Suite struct HealthSchemaTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try Vault(directory: directory.url).openDatabase(clock: fixedClock)
        defer { database.close() }
        try database.write { db in
            try db.execute(
                """
                INSERT INTO health_imports (id, imported_at, file_bytes, records_read, added, already_present, skipped, warnings)
                VALUES (1, '2026-11-30T12:00:00.000Z', 10, 1, 1, 0, 0, 0)
                """)
            try db.execute("INSERT INTO health_sources (id, name, version, device) VALUES (1, 'Watch', '10.2', '')")
        }
        try body(database)
    }

    private func insert(
        _ db: Connection, fingerprint: Data = Data(repeating: 1, count: 16), kind: String = "step_count",
        start: Int64 = 100, end: Int64 = 200, offset: Int64 = 3600
    ) throws {
        try db.execute(
            """
            INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, start_at, start_offset, end_at, end_offset)
            VALUES (?, 1, ?, 1, 'count', 5, ?, ?, ?, ?)
            """, fingerprint, kind, start, offset, end, offset)
    }

    @Test func aFingerprintIsStoredOnce() throws {
        try withDatabase { database in
            try database.write { try insert($0) }
            #expect(throws: DatabaseError.self) { try database.write { try insert($0) } }
            try database.write {
                try $0.execute(
                    """
                    INSERT INTO health_samples (fingerprint, import_id, kind, source_id, unit, value, start_at, start_offset, end_at, end_offset)
                    VALUES (?, 1, 'step_count', 1, 'count', 5, 100, 0, 200, 0) ON CONFLICT (start_at, fingerprint) DO NOTHING
                    """, Data(repeating: 1, count: 16))
            }
            #expect(try database.read { try $0.scalar("SELECT count(*) FROM health_samples", as: Int.self) } == 1)
        }
    }

    @Test func theSchemaRefusesImpossibleRows() throws {
        try withDatabase { database in
            for bad: (Connection) throws -> Void in [
                { try insert($0, fingerprint: Data(repeating: 1, count: 15)) },
                { try insert($0, kind: "heart_rate_variability_rmssd") },
                { try insert($0, start: 300, end: 200) },
                { try insert($0, offset: 19 * 3600) },
            ] {
                #expect(throws: DatabaseError.self) { try database.write(bad) }
            }
            #expect(throws: DatabaseError.self) {
                try database.write { try $0.execute("INSERT INTO health_sources (name, version, device) VALUES ('Watch', '10.2', '')") }
            }
        }
    }

    @Test func theSchemaTakesHealthConnectsKinds() throws {
        try withDatabase { database in
            for (index, kind) in ["heart_rate", "blood_pressure_systolic", "blood_pressure_diastolic"].enumerated() {
                try database.write { try insert($0, fingerprint: Data(repeating: UInt8(10 + index), count: 16), kind: kind) }
            }
            #expect(try database.read { try $0.scalar("SELECT count(*) FROM health_samples", as: Int.self) } == 3)
        }
    }

    @Test func fingerprintsAreSixteenBytesAndFollowTheBytes() {
        #expect(HealthFingerprint.of([]).count == 16)
        #expect(HealthFingerprint.of([1, 2, 3]) == HealthFingerprint.of([1, 2, 3]))
        #expect(HealthFingerprint.of([1, 2, 3]) != HealthFingerprint.of([1, 2, 4]))
        // The first 16 bytes of SHA-256("abc").
        #expect(
            HealthFingerprint.of(Array("abc".utf8))
                == Data([
                    0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                    0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                ]))
    }
}
