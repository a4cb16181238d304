import CairnCore
import Foundation
import Testing

@testable import Storage

/// The Skin notes migration: notes written before it become version 1 of each entry's note history.
@Suite struct SkinSchemaTests {
    @Test func theNotesMigrationKeepsEveryEarlierNoteAsItsFirstVersion() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let copy = dir.url.appendingPathComponent("skin.sqlite")
        try FileManager.default.copyItem(at: CairnSchemaTests.fixtureURL("2026-11-30.skin"), to: copy)
        let database = try Database(path: copy.path)
        defer { database.close() }
        try database.write { db in
            // An entry without a note gets no version.
            try db.execute(
                """
                INSERT INTO skin_entries (id, area_id, captured_at, time_zone, photo_id, thumbnail_id, note, brightness,
                dark_clipped, bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at)
                SELECT 'a1000000-0000-4000-8000-000000000003', area_id, captured_at, time_zone, photo_id, thumbnail_id, '  ',
                brightness, dark_clipped, bright_clipped, sharpness, fingerprint, fingerprint_revision, created_at
                FROM skin_entries WHERE id = 'a1000000-0000-4000-8000-000000000001'
                """)
        }
        try Migrator(CairnSchema.migrations).migrate(database)
        let rows = try database.read { db in
            try db.query("SELECT entry_id, version, text, recorded_at FROM skin_entry_notes ORDER BY entry_id").map {
                "\(try $0.get("entry_id", as: String.self).suffix(1)) v\(try $0.get("version", as: Int.self)) \(try $0.get("text", as: String.self)) \(try $0.get("recorded_at", as: String.self))"
            }
        }
        #expect(rows == ["1 v1 after 'sun' \"day\" 2026-11-30T09:21:00.000Z", "2 v1 after 'sun' \"day\" 2026-12-07T09:21:00.000Z"])
        // Append-only: a recorded version cannot be rewritten, and a first version cannot be empty.
        #expect(throws: DatabaseError.self) {
            try database.write { try $0.execute("UPDATE skin_entry_notes SET text = 'changed'") }
        }
        #expect(throws: DatabaseError.self) {
            try database.write {
                try $0.execute(
                    """
                    INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at)
                    VALUES ('a1000000-0000-4000-8000-000000000003', 1, '', '2026-12-01T00:00:00.000Z')
                    """)
            }
        }
        #expect(throws: DatabaseError.self) {
            try database.write {
                try $0.execute(
                    """
                    INSERT INTO skin_entry_notes (entry_id, version, text, recorded_at)
                    VALUES ('a1000000-0000-4000-8000-000000000001', 1, 'again', '2026-12-01T00:00:00.000Z')
                    """)
            }
        }
    }
}
