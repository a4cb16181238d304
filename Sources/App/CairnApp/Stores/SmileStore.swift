import CairnCore
import Foundation
import PhotoMetadata
import Smile
import Storage

/// The Smile journal's SQL: one row per stored crop. A store holds no rule: `SmileService` decides what is
/// stored (only a verified crop, never the raw photo) and owns the transaction, and the store works on the
/// connection it is handed inside it.
struct SmileStore {
    let db: Connection
    let photos: PhotoFileStore

    init(_ db: Connection, photos: PhotoFileStore) {
        self.db = db
        self.photos = photos
    }

    /// Saves an entry for a stored crop.
    func insert(
        id: SmileEntryID, photo: PhotoID, captureDate: CaptureDate?, note: String, source: SmileCropSource,
        square: CropSquare, sourceWidth: Int, sourceHeight: Int, at now: Date
    ) throws {
        try db.execute(
            """
            INSERT INTO smile_entries (id, photo_id, captured_local, captured_offset_seconds, note, detector,
                square_x, square_y, square_side, source_width, source_height, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, id.rawValue, photo.rawValue, captureDate?.localDateTime, captureDate?.utcOffsetSeconds, note, source.rawValue,
            square.x, square.y, square.side, sourceWidth, sourceHeight, now)
    }

    /// Deletes an entry; returns its crop's photo (which the caller removes), or nil when there is no such entry.
    func delete(_ id: SmileEntryID) throws -> PhotoID? {
        guard let photo: String = try db.scalar("SELECT photo_id FROM smile_entries WHERE id = ?", id.rawValue) else { return nil }
        try db.execute("DELETE FROM smile_entries WHERE id = ?", id.rawValue)
        return PhotoID(photo)
    }

    /// Every entry in the order they were added.
    func entries() throws -> [SmileEntry] {
        try db.query("SELECT * FROM smile_entries ORDER BY created_at, id").map(entry(row:))
    }

    /// The entry with this identifier, or nil.
    func entry(_ id: SmileEntryID) throws -> SmileEntry? {
        try db.queryFirst("SELECT * FROM smile_entries WHERE id = ?", id.rawValue).map(entry(row:))
    }

    /// The identifiers that start with `prefix`.
    func ids(startingWith prefix: String) throws -> [SmileEntryID] {
        try db.query("SELECT id FROM smile_entries WHERE substr(id, 1, ?) = ?", prefix.count, prefix)
            .map { SmileEntryID(try $0.get("id", as: String.self)) }
    }

    /// A `smile_entries` row with its stored crop's photo record.
    private func entry(row: Row) throws -> SmileEntry {
        guard let photo = try photos.photo(PhotoID(try row.get("photo_id")), in: db),
            let source = SmileCropSource(rawValue: try row.get("detector")),
            let createdAt = Timestamp.date(from: try row.get("created_at"))
        else {
            throw DatabaseError.misuse("smile_entries row holds an unknown photo, detector or timestamp")
        }
        let captureDate = try row.optional("captured_local", as: String.self).map {
            CaptureDate(localDateTime: $0, utcOffsetSeconds: try row.optional("captured_offset_seconds", as: Int.self))
        }
        return SmileEntry(
            id: SmileEntryID(try row.get("id")), photo: photo, captureDate: captureDate,
            note: try row.get("note"), source: source,
            square: CropSquare(x: try row.get("square_x"), y: try row.get("square_y"), side: try row.get("square_side")),
            sourceWidth: try row.get("source_width"), sourceHeight: try row.get("source_height"),
            createdAt: createdAt)
    }
}
