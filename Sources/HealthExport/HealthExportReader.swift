internal import CArchive
import Foundation

/// Reads an Apple Health export ("Export All Health Data"): the `export.zip` (streamed out of the archive, never
/// extracted to disk) or the `export.xml` in it. Streaming with constant memory: the file is read in chunks of
/// `chunkSize` bytes, whatever its size. Read-only: Cairn never writes health data back.
public struct HealthExportReader: Sendable {
    /// Bytes read from the file per step.
    public let chunkSize: Int

    /// A reader; `chunkSize` is clamped to at least 4 KiB.
    public init(chunkSize: Int = 256 << 10) {
        self.chunkSize = max(4096, chunkSize)
    }

    /// Reads the export at `url`, handing each record of a kept type that passes its checks to `onRecord`, in
    /// file order. Zip or XML is told by the file's first bytes, not its name.
    ///
    /// - Parameters:
    ///   - progress: called after each chunk with (bytes of the file read so far, file size).
    ///   - onRecord: receives each record; an error it throws stops the read and is rethrown.
    /// - Returns: counts of records read, skipped by type, and left out with a warning.
    /// - Throws: `HealthExportError` for a file that cannot be read or is not a well-formed export.
    /// - Complexity: O(file size) time, O(chunk size) memory.
    ///
    /// Reading and parsing run on a worker thread while `onRecord` and `progress` run on the calling thread
    /// (records cross in batches through a small bounded queue), so parsing and storing use two cores.
    public func read(contentsOf url: URL, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in },
                     onRecord: (HealthRecord) throws -> Void) throws -> HealthReadSummary {
        let pipe = RecordPipe()
        let reader = self
        let worker = Thread {
            do {
                let summary = try reader.readSequentially(contentsOf: url, progress: { pipe.report($0, $1) }) { record in
                    try pipe.add(record)
                }
                pipe.finish(summary)
            } catch {
                pipe.fail(error)
            }
        }
        worker.stackSize = 1 << 20
        worker.start()
        defer { pipe.waitUntilWorkerEnds() }
        while let (batch, position) = try pipe.next() {
            for record in batch {
                do { try onRecord(record) } catch {
                    pipe.cancel()
                    throw error
                }
            }
            if let position { progress(position.0, position.1) }
        }
        return try pipe.result()
    }

    /// The same read on the calling thread, `onRecord` called from inside the parser.
    func readSequentially(contentsOf url: URL, progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void,
                          onRecord: @escaping (HealthRecord) throws -> Void) throws -> HealthReadSummary {
        guard let file = fopen(url.path, "rb") else { throw HealthExportError.unreadable }
        var isZip = false
        var magic = [UInt8](repeating: 0, count: 4)
        if fread(&magic, 1, 4, file) == 4 { isZip = magic == [0x50, 0x4B, 0x03, 0x04] }
        var info = stat()
        let totalBytes = fstat(fileno(file), &info) == 0 ? Int64(info.st_size) : 0
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            fclose(file)
            throw HealthExportError.unreadable
        }
        let parser = ExportXMLParser(onRecord: onRecord)
        if isZip {
            fclose(file)
            try readZip(url.path, totalBytes: totalBytes, parser: parser, progress: progress)
        } else {
            defer { fclose(file) }
            rewind(file)
            try readPlain(file, totalBytes: totalBytes, parser: parser, progress: progress)
        }
        var summary = parser.summary
        summary.fileBytes = totalBytes
        return summary
    }

    private func readPlain(_ file: UnsafeMutablePointer<FILE>, totalBytes: Int64, parser: ExportXMLParser,
                           progress: (Int64, Int64) -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var bytesRead: Int64 = 0
        while true {
            let count = fread(buffer.baseAddress, 1, chunkSize, file)
            if count == 0 {
                if ferror(file) != 0 { throw HealthExportError.unreadable }
                break
            }
            bytesRead += Int64(count)
            try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), isLast: false)
            progress(bytesRead, totalBytes)
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
    }

    private func readZip(_ path: String, totalBytes: Int64, parser: ExportXMLParser,
                         progress: (Int64, Int64) -> Void) throws {
        guard let archive = archive_read_new() else { throw HealthExportError.damagedArchive }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 64 << 10) == ARCHIVE_OK else {
            throw HealthExportError.damagedArchive
        }
        var entry: OpaquePointer?
        while true {
            let rc = archive_read_next_header(archive, &entry)
            if rc == ARCHIVE_EOF { throw HealthExportError.noExportInArchive }
            guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let entry else { throw HealthExportError.damagedArchive }
            if let name = archive_entry_pathname(entry), Self.isExportXML(String(cString: name)) { break }
            _ = archive_read_data_skip(archive)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = archive_read_data(archive, buffer.baseAddress, chunkSize)
            if count < 0 { throw HealthExportError.damagedArchive }
            if count == 0 { break }
            try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), isLast: false)
            progress(min(archive_filter_bytes(archive, -1), totalBytes), totalBytes)
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
        progress(totalBytes, totalBytes)
    }

    /// Whether an archive member is the export: `apple_health_export/export.xml` in exports from 2016 on, and
    /// any `export.xml` (not `export_cda.xml`) in older or repacked ones.
    static func isExportXML(_ name: String) -> Bool {
        name == "export.xml" || name.hasSuffix("/export.xml")
    }
}

/// Carries records from the parsing thread to the calling thread in batches, with back-pressure (at most
/// `capacity` batches wait), so memory stays bounded whichever side is slower.
private final class RecordPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[HealthRecord]] = []
    private var filling: [HealthRecord] = []
    private var position: (Int64, Int64)?
    private var summary: HealthReadSummary?
    private var failure: Error?
    private var cancelled = false
    private var workerEnded = false
    private let batchSize = 1024
    private let capacity = 8

    /// Worker: queues a record; throws once the caller has stopped reading.
    func add(_ record: HealthRecord) throws {
        filling.append(record)
        if filling.count >= batchSize { try flush() }
    }

    /// Worker: the latest position in the file.
    func report(_ read: Int64, _ total: Int64) {
        condition.lock()
        position = (read, total)
        condition.unlock()
    }

    private func flush() throws {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        batches.append(filling)
        filling = []
        condition.broadcast()
    }

    /// Worker: the read ended well.
    func finish(_ summary: HealthReadSummary) {
        try? flush()
        condition.lock()
        self.summary = summary
        workerEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// Worker: the read failed.
    func fail(_ error: Error) {
        condition.lock()
        failure = error
        workerEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// Caller: the next batch with the position reached so far, nil at the end; throws the worker's error.
    func next() throws -> ([HealthRecord], (Int64, Int64)?)? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !workerEnded { condition.wait() }
        if !batches.isEmpty {
            let batch = batches.removeFirst()
            condition.broadcast()
            return (batch, position)
        }
        if let failure { throw failure }
        // One last, empty batch carries the final position.
        guard let last = position else { return nil }
        position = nil
        return ([], last)
    }

    /// Caller: the summary once the worker has ended.
    func result() throws -> HealthReadSummary {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        guard let summary else { throw HealthExportError.unreadable }
        return summary
    }

    /// Caller: stop the worker (it throws at its next batch).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Caller: blocks until the worker thread has finished, so no file stays open after `read` returns.
    func waitUntilWorkerEnds() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !workerEnded { condition.wait() }
        condition.unlock()
    }
}
