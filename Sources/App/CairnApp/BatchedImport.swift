import CairnCore
import Foundation
import Storage

/// The one way a long import writes: in batches (`Database.writeInBatches`, about 0.1 s each), so it never holds
/// the vault, recorded under one run so that a failed or interrupted import leaves nothing. Used by the Apple
/// Health import and the intake history import.
///
/// A run:
/// 1. creates a marker file beside the database (`.<kind>-import-<token>.lock`) and locks it, so no other
///    process mistakes the running import for an interrupted one;
/// 2. in one transaction, makes the run's row (`begin`) and writes the numbers `begin` returns (the run's id and
///    what its rollback needs) into the marker: a crash before that COMMIT leaves neither, a crash after leaves
///    both;
/// 3. writes in batches (`body`), each batch one transaction, the run's rows recorded under its id; the journal
///    does not read them until the run is finished;
/// 4. finishes in one last transaction (`finish`), which marks the run finished;
/// 5. on any error, removes the run and everything recorded under it in one transaction (`rollBack`) and
///    rethrows. A run cut off by a crash or `kill -9` is removed the same way the next time a process that may
///    write opens the vault (`removeInterrupted`).
struct BatchedImport {
    let database: Database
    /// "health" or "intake": names the marker files.
    let kind: String
    /// Removes one run and everything recorded under it, given the numbers `begin` returned, inside the
    /// transaction it is handed. Must be safe to run for a run that is already finished (it then removes nothing).
    let rollBack: (_ marker: [Int64], _ db: Connection) throws -> Void

    private var markerPrefix: String { ".\(kind)-import-" }
    private var directory: URL { URL(fileURLWithPath: database.path).deletingLastPathComponent() }

    /// Runs one import (steps 1-5 above) and returns what `finish` returns.
    func run<Written, Result>(
        begin: (Connection) throws -> [Int64], body: (_ marker: [Int64], BatchedWrite) throws -> Written,
        finish: (_ marker: [Int64], Written, Connection) throws -> Result
    ) throws -> Result {
        let markerPath = directory.appendingPathComponent("\(markerPrefix)\(UUID().uuidString.lowercased()).lock").path
        let marker: FileLock
        do {
            marker = try FileLock(path: markerPath)
        } catch {
            throw VaultError.fileOperationFailed("create import marker")
        }
        _ = marker.tryLock(exclusive: true)
        var keepMarker = false
        defer { if !keepMarker { try? FileManager.default.removeItem(atPath: markerPath) } }
        let fields = try database.write { db in
            let fields = try begin(db)
            marker.write(fields.map(String.init).joined(separator: " "))
            return fields
        }
        do {
            let written = try database.writeInBatches { batch in try body(fields, batch) }
            return try database.write { db in try finish(fields, written, db) }
        } catch {
            // Nothing of a failed import stays. If even this fails (the disk is gone), the marker stays, unlocked
            // once this process ends, and the next open removes the run.
            if (try? database.write({ db in try rollBack(fields, db) })) == nil { keepMarker = true }
            throw error
        }
    }

    /// Removes every run of this kind cut off by a crash (its marker is no longer locked), one transaction per
    /// run; returns how many were removed.
    @discardableResult
    func removeInterrupted(fieldCount: Int) throws -> Int {
        var removed = 0
        for marker in Self.leftovers(in: directory, prefix: markerPrefix) {
            let fields = marker.lock.read().split(separator: " ").compactMap { Int64($0) }
            if fields.count == fieldCount {
                try database.write { db in try rollBack(fields, db) }
                removed += 1
            }
            try? FileManager.default.removeItem(atPath: marker.path)
        }
        return removed
    }

    /// The files in `directory` named `prefix…` whose lock nobody holds (each returned locked by us).
    static func leftovers(in directory: URL, prefix: String) -> [(path: String, lock: FileLock)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.compactMap { name in
            let path = directory.appendingPathComponent(name).path
            guard let lock = try? FileLock(path: path), lock.tryLock(exclusive: true) else { return nil }
            return (path, lock)
        }
    }
}
