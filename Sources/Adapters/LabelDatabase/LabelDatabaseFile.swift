import CairnCore
import Foundation
import Regimen
import Storage

/// The label database's file: an SQLite database of text only, built whole from DSLD's bulk file
/// (`build(at:from:importedAt:)`) and afterwards only read. Public data: it lives beside the vault, outside it
/// and its backups, unencrypted. Names and brands are searched through an FTS5 index over the labels table
/// (`label_search`, external content: the text is stored once); barcodes as GTIN-14 in their own table; a
/// label's rows as one text column (a line per row), since they are only ever read whole.
public final class LabelDatabaseFile: Sendable {
    /// The schema's version, kept in `meta`; a file of another version is rebuilt by importing again.
    public static let formatVersion = "1"
    private let database: BuiltDatabase

    /// What the file says about itself.
    public struct About: Sendable, Equatable {
        /// When it was imported.
        public let importedAt: Date
        /// The name of the file it was imported from.
        public let sourceName: String
        /// How many labels it holds.
        public let labels: Int
    }

    /// Opens the file at `path` read-only. Throws `LabelDatabaseError.damaged` for a file that is not one.
    public init(readingAt path: String) throws {
        do {
            database = try BuiltDatabase(readingAt: path)
            let version = try database.read { try $0.scalar("SELECT value FROM meta WHERE key = 'format'", as: String.self) }
            guard version == Self.formatVersion else { throw LabelDatabaseError.damaged }
        } catch let error as LabelDatabaseError {
            throw error
        } catch {
            throw LabelDatabaseError.damaged
        }
    }

    /// Closes the file (readers of a replaced file let it go).
    public func close() { database.close() }

    /// Builds a new label database at `path` (a new file) from DSLD's bulk file at `source`. Labels are written as
    /// they are read (memory flat); a label id seen twice keeps its last record. Throws `LabelDatabaseError.noLabels`
    /// when the file held none, and the errors of `DSLDBulkFile.read`; the caller removes the file then.
    public static func build(
        at path: String, from source: URL, importedAt: Date,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in }
    ) throws -> DSLDBulkFile.Summary {
        var summary = DSLDBulkFile.Summary()
        try BuiltDatabase.build(at: path) { db in
            try db.executeScript(
                """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE labels (
                    id         INTEGER PRIMARY KEY,
                    name       TEXT NOT NULL,
                    brand      TEXT NOT NULL,
                    serving    TEXT NOT NULL,
                    serving_amount TEXT,
                    form       TEXT NOT NULL,
                    label_date TEXT NOT NULL,
                    on_market  INTEGER NOT NULL,
                    rows       TEXT NOT NULL
                );
                CREATE TABLE barcodes (gtin TEXT NOT NULL, label_id INTEGER NOT NULL, PRIMARY KEY (gtin, label_id)) WITHOUT ROWID;
                """)
            summary = try DSLDBulkFile(url: source).read(progress: progress) { label in
                try db.execute(
                    "INSERT OR REPLACE INTO labels (id, name, brand, serving, serving_amount, form, label_date, on_market, rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    label.id, label.name, label.brand, label.servingText, label.servingSize.map(Self.amountText), label.formText,
                    label.labelDate, label.onMarket ? 1 : 0, Self.rowsText(label.rows))
                for gtin in label.barcodes {
                    try db.execute("INSERT OR IGNORE INTO barcodes (gtin, label_id) VALUES (?, ?)", gtin.digits, label.id)
                }
            }
            guard summary.labels > 0 else { throw LabelDatabaseError.noLabels }
            // The index is made once, from the stored text (faster than row by row, and the text is kept once).
            try db.executeScript(
                """
                CREATE VIRTUAL TABLE label_search USING fts5(
                    name, brand, content = 'labels', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
                INSERT INTO label_search (label_search) VALUES ('rebuild');
                INSERT INTO label_search (label_search) VALUES ('optimize');
                """)
            let count = try db.scalar("SELECT count(*) FROM labels", as: Int.self) ?? 0
            for (key, value) in [
                ("format", formatVersion), ("imported_at", Timestamp.string(from: importedAt)), ("source_name", source.lastPathComponent),
                ("labels", "\(count)"),
            ] {
                try db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", key, value)
            }
        }
        return summary
    }

    /// What the file says about itself.
    public func about() throws -> About {
        try guarded {
            try database.read { db in
                let rows = try db.query("SELECT key, value FROM meta")
                var values: [String: String] = [:]
                for row in rows { values[try row.get("key")] = try row.get("value") }
                guard let date = values["imported_at"].flatMap { Timestamp.date(from: $0) }, let labels = values["labels"].flatMap({ Int($0) }) else {
                    throw LabelDatabaseError.damaged
                }
                return About(importedAt: date, sourceName: values["source_name"] ?? "", labels: labels)
            }
        }
    }

    /// How many of the newest labels that hold every word are ranked by how well they match (BM25): ranking every
    /// label that holds a common word ("vitamin": tens of thousands) took 60-200 ms; the newest few hundred, in
    /// FTS5's own descending id order (DSLD's ids grow with time), take a few.
    public static let rankedCandidates = 300

    /// Labels whose name or brand hold every word of `text` (each as the start of a word; a one-letter word whole),
    /// at most `limit`: of the
    /// newest `rankedCandidates` such labels, the best matches first. Nothing for text with no letters or digits.
    public func search(_ text: String, limit: Int = 20) throws -> [LabelSummary] {
        let words = text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(12)
        guard !words.isEmpty else { return [] }
        // A word of one letter ("S.O.D.", "vitamin B") is matched whole: as a prefix it stands for every word with that
        // first letter, and ranking all of them took 90 ms.
        let query = words.map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\"" + ($0.count > 1 ? "*" : "") }.joined(separator: " ")
        return try guarded {
            try database.read { db in
                // The id of the oldest of the newest candidates, then only those are ranked.
                let floor: Int =
                    try db.scalar(
                        """
                        SELECT min(rowid) FROM (SELECT rowid FROM label_search WHERE label_search MATCH ? ORDER BY rowid DESC LIMIT ?)
                        """, query, Self.rankedCandidates) ?? 0
                return try db.query(
                    """
                    SELECT l.id, l.name, l.brand, l.serving, l.form, l.label_date, l.on_market
                    FROM label_search JOIN labels l ON l.id = label_search.rowid
                    WHERE label_search MATCH ? AND label_search.rowid >= ?
                    ORDER BY label_search.rank, l.on_market DESC, l.label_date DESC LIMIT ?
                    """, query, floor, limit
                ).map(Self.summary)
            }
        }
    }

    /// The labels that carry `barcode`, newest label first.
    public func labels(withBarcode barcode: GTIN) throws -> [LabelSummary] {
        try guarded {
            try database.read { db in
                try db.query(
                    """
                    SELECT l.id, l.name, l.brand, l.serving, l.form, l.label_date, l.on_market
                    FROM barcodes b JOIN labels l ON l.id = b.label_id WHERE b.gtin = ? ORDER BY l.on_market DESC, l.label_date DESC, l.id DESC
                    """, barcode.digits
                ).map(Self.summary)
            }
        }
    }

    /// The whole label `id`. Throws `LabelDatabaseError.unknownLabel`.
    public func label(_ id: Int) throws -> LabelRecord {
        try guarded {
            try database.read { db in
                guard let row = try db.queryFirst("SELECT * FROM labels WHERE id = ?", id) else { throw LabelDatabaseError.unknownLabel }
                let barcodes = try db.query("SELECT gtin FROM barcodes WHERE label_id = ? ORDER BY gtin", id).compactMap {
                    GTIN(try $0.get("gtin", as: String.self))
                }
                let servingAmount: String? = try row.optional("serving_amount")
                return LabelRecord(
                    id: try row.get("id"), name: try row.get("name"), brand: try row.get("brand"), barcodes: barcodes,
                    servingText: try row.get("serving"), servingSize: servingAmount.flatMap(Self.amount),
                    formText: try row.get("form"), rows: Self.rows(fromText: try row.get("rows")),
                    labelDate: try row.get("label_date"), onMarket: try row.get("on_market", as: Int.self) != 0)
            }
        }
    }

    // MARK: text forms

    private static func summary(_ row: Row) throws -> LabelSummary {
        LabelSummary(
            id: try row.get("id"), name: try row.get("name"), brand: try row.get("brand"), servingText: try row.get("serving"),
            formText: try row.get("form"), labelDate: try row.get("label_date"), onMarket: try row.get("on_market", as: Int.self) != 0)
    }

    /// Database failures reading the file are a damaged label database.
    private func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as LabelDatabaseError { throw error } catch { throw LabelDatabaseError.damaged }
    }

    /// An amount as "VALUE UNIT" (the unit's raw value).
    static func amountText(_ amount: Amount) -> String { "\(amount.value) \(amount.unit.rawValue)" }

    static func amount(_ text: String) -> Amount? {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let value = Decimal(string: String(parts[0]), locale: Locale(identifier: "en_US_POSIX")),
            let unit = DoseUnit(rawValue: String(parts[1]))
        else { return nil }
        return try? Amount(value, unit)
    }

    /// Rows as text: one line per row, fields separated by U+001F (names are cleaned of control characters).
    static func rowsText(_ rows: [LabelRecordRow]) -> String {
        rows.map { row in
            [
                row.name, row.form ?? "", row.amount.map(amountText) ?? "", row.dailyValuePercent.map { "\($0)" } ?? "",
                row.isBlend ? "1" : "", row.blendName ?? "",
            ].joined(separator: "\u{1F}")
        }.joined(separator: "\n")
    }

    static func rows(fromText text: String) -> [LabelRecordRow] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 6, !f[0].isEmpty else { return nil }
            return LabelRecordRow(
                name: f[0], form: f[1].isEmpty ? nil : f[1], amount: f[2].isEmpty ? nil : amount(f[2]),
                dailyValuePercent: f[3].isEmpty ? nil : Decimal(string: f[3], locale: Locale(identifier: "en_US_POSIX")),
                isBlend: f[4] == "1", blendName: f[5].isEmpty ? nil : f[5])
        }
    }
}
