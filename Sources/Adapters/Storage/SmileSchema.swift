extension CairnSchema {
    /// The Smile journal: one row per confirmed mouth crop. The crop is a `photos` row (purpose "smile");
    /// the original photo is never stored, only what is needed to check where the crop came from.
    ///
    /// - `captured_local` / `captured_offset_seconds`: the capture date read from the original's EXIF
    ///   (local wall-clock time "yyyy-MM-ddTHH:mm:ss" and the camera's UTC offset), NULL when it had none.
    /// - `detector`: which step placed the square: `landmarks`, `colour`, or `manual` (the person).
    /// - `square_*`: the crop square in the original photo's upright pixel coordinates;
    ///   `source_width`/`source_height`: that photo's upright size (the square lies inside it).
    static let smile = Migration(id: "2026-11-30.smile") { db in
        try db.executeScript(
            """
            CREATE TABLE smile_entries (
                id                      TEXT PRIMARY KEY,
                photo_id                TEXT NOT NULL UNIQUE REFERENCES photos(id),
                captured_local          TEXT CHECK (captured_local IS NULL OR length(captured_local) = 19),
                captured_offset_seconds INTEGER CHECK (captured_offset_seconds IS NULL OR captured_local IS NOT NULL),
                note                    TEXT NOT NULL DEFAULT '',
                detector                TEXT NOT NULL CHECK (detector IN ('landmarks', 'colour', 'manual')),
                square_x                INTEGER NOT NULL CHECK (square_x >= 0),
                square_y                INTEGER NOT NULL CHECK (square_y >= 0),
                square_side             INTEGER NOT NULL CHECK (square_side > 0),
                source_width            INTEGER NOT NULL CHECK (source_width >= square_x + square_side),
                source_height           INTEGER NOT NULL CHECK (source_height >= square_y + square_side),
                created_at              TEXT NOT NULL
            );
            CREATE INDEX smile_entries_by_created ON smile_entries(created_at);
            """)
    }
}
