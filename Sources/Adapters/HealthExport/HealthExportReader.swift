internal import CArchive
import CairnCore
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
    /// Reading and parsing run on a thread of their own while `onRecord` and `progress` run on the calling thread
    /// (records and positions cross in order through `Handoff`), so parsing and storing use two cores.
    ///   - dates: the instants a record's start, end and creation dates must fall in (`ImportDates.instants`);
    ///     a record with a date outside is left out as `HealthRecordProblem.dateOutOfRange`. Nil: any date.
    public func read(
        contentsOf url: URL, dates: Range<Date>? = nil,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in },
        onRecord: (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        try read(.file(url), dates: dates, progress: progress, onRecord: onRecord)
    }

    /// The same read of an export from `source`: a file, or the bytes of one already in memory (an upload, read
    /// where it is rather than written to a temporary file first).
    public func read(
        _ source: HealthExportSource, dates: Range<Date>? = nil,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in },
        onRecord: (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        enum Item: Sendable {
            case record(HealthRecord)
            case position(Int64, Int64)
        }
        let reader = self
        return try Handoff.run(
            chunk: 1024,
            produce: { emit in
                // The parser keeps its record handler only for the length of this read.
                try withoutActuallyEscaping(emit) { emit in
                    try reader.readSequentially(source, dates: dates, progress: { try emit(.position($0, $1)) }) { try emit(.record($0)) }
                }
            },
            consume: { (item: Item) in
                switch item {
                case .record(let record): try onRecord(record)
                case .position(let read, let total): progress(read, total)
                }
            })
    }

    /// The same read on the calling thread, `onRecord` called from inside the parser.
    func readSequentially(
        _ source: HealthExportSource, dates: Range<Date>? = nil,
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) throws -> Void,
        onRecord: @escaping (HealthRecord) throws -> Void
    ) throws -> HealthReadSummary {
        let parser = ExportXMLParser(dates: Self.seconds(dates), onRecord: onRecord)
        let totalBytes: Int64
        switch source {
        case .file(let url):
            guard let file = fopen(url.path, "rb") else { throw HealthExportError.unreadable }
            var isZip = false
            var magic = [UInt8](repeating: 0, count: 4)
            if fread(&magic, 1, 4, file) == 4 { isZip = magic == Self.zipMagic }
            var info = stat()
            totalBytes = fstat(fileno(file), &info) == 0 ? Int64(info.st_size) : 0
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                fclose(file)
                throw HealthExportError.unreadable
            }
            if isZip {
                fclose(file)
                try readZip(totalBytes: totalBytes, parser: parser, progress: progress) { archive_read_open_filename($0, url.path, 64 << 10) }
            } else {
                defer { fclose(file) }
                rewind(file)
                try readPlain(totalBytes: totalBytes, parser: parser, progress: progress) { buffer in
                    let count = fread(buffer.baseAddress, 1, buffer.count, file)
                    if count == 0, ferror(file) != 0 { throw HealthExportError.unreadable }
                    return count
                }
            }
        case .bytes(let data):
            totalBytes = Int64(data.count)
            try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                if bytes.count >= 4, Array(bytes.prefix(4)) == Self.zipMagic {
                    try readZip(totalBytes: totalBytes, parser: parser, progress: progress) {
                        archive_read_open_memory($0, bytes.baseAddress, bytes.count)
                    }
                } else {
                    var offset = 0
                    try readPlain(totalBytes: totalBytes, parser: parser, progress: progress) { buffer in
                        let count = min(buffer.count, bytes.count - offset)
                        if count > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])) }
                        offset += count
                        return count
                    }
                }
            }
        }
        var summary = parser.summary
        summary.fileBytes = totalBytes
        return summary
    }

    /// The first bytes of a zip archive.
    private static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    /// Parses the XML `fill` gives (it fills a buffer and returns how much it put there, 0 at the end).
    private func readPlain(
        totalBytes: Int64, parser: ExportXMLParser, progress: (Int64, Int64) throws -> Void,
        fill: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var bytesRead: Int64 = 0
        while true {
            let count = try fill(buffer)
            if count == 0 { break }
            bytesRead += Int64(count)
            try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), isLast: false)
            try progress(bytesRead, totalBytes)
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
    }

    /// Parses the export member of the zip archive `open` opens (a file, or bytes in memory). Throws
    /// `HealthExportError.severalExportsInArchive` before reading any record when the archive holds more than one
    /// export member: a first pass reads only the members' headers (libarchive seeks over their data).
    private func readZip(
        totalBytes: Int64, parser: ExportXMLParser, progress: (Int64, Int64) throws -> Void,
        open: (OpaquePointer) -> Int32
    ) throws {
        let exports = try Self.exportMemberCount(open: open)
        guard exports <= 1 else { throw HealthExportError.severalExportsInArchive(count: exports) }
        guard let archive = archive_read_new() else { throw HealthExportError.damagedArchive }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard open(archive) == ARCHIVE_OK else {
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
            try progress(min(archive_filter_bytes(archive, -1), totalBytes), totalBytes)
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true)
        try progress(totalBytes, totalBytes)
    }

    /// Whole seconds, both bounds rounded up: a record's whole-second date is inside exactly when its instant is.
    static func seconds(_ dates: Range<Date>?) -> Range<Int64>? {
        dates.map { Int64($0.lowerBound.timeIntervalSince1970.rounded(.up))..<Int64($0.upperBound.timeIntervalSince1970.rounded(.up)) }
    }

    /// Which export `source` is: Apple Health's (`export.xml`, or a zip holding one) or Health Connect's (a zip
    /// holding `health_connect_export.db` and no `export.xml`). Told by the first bytes and the zip's member
    /// names (headers only), never by the file's name. A file that is neither is left to Apple's reader, which
    /// says what is wrong with it.
    public static func format(of source: HealthExportSource) throws -> HealthExportFormat {
        var isZip = false
        switch source {
        case .file(let url):
            guard let file = fopen(url.path, "rb") else { throw HealthExportError.unreadable }
            var magic = [UInt8](repeating: 0, count: 4)
            isZip = fread(&magic, 1, 4, file) == 4 && magic == zipMagic
            fclose(file)
        case .bytes(let data): isZip = data.count >= 4 && Array(data.prefix(4)) == zipMagic
        }
        guard isZip else { return .appleHealth }
        return try withArchive(source) { open in
            let databases = try memberCount(open: open, matching: HealthConnectExport.isDatabase)
            guard databases > 0 else { return .appleHealth }
            return try memberCount(open: open, matching: isExportXML) == 0 ? .healthConnect : .appleHealth
        }
    }

    /// Calls `body` with a function that opens `source` (a zip file or its bytes) in a libarchive reader.
    static func withArchive<T>(_ source: HealthExportSource, _ body: ((OpaquePointer) -> Int32) throws -> T) throws -> T {
        switch source {
        case .file(let url): return try body { archive_read_open_filename($0, url.path, 64 << 10) }
        case .bytes(let data):
            return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                try body { archive_read_open_memory($0, bytes.baseAddress, bytes.count) }
            }
        }
    }

    /// How many members of the archive `open` opens are an export (`isExportXML`), reading headers only.
    static func exportMemberCount(open: (OpaquePointer) -> Int32) throws -> Int {
        try memberCount(open: open, matching: isExportXML)
    }

    /// How many members of the archive `open` opens have a name `matching` accepts, reading headers only.
    static func memberCount(open: (OpaquePointer) -> Int32, matching: (String) -> Bool) throws -> Int {
        guard let archive = archive_read_new() else { throw HealthExportError.damagedArchive }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard open(archive) == ARCHIVE_OK else { throw HealthExportError.damagedArchive }
        var entry: OpaquePointer?
        var count = 0
        while true {
            let rc = archive_read_next_header(archive, &entry)
            if rc == ARCHIVE_EOF { return count }
            guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let entry else { throw HealthExportError.damagedArchive }
            if let name = archive_entry_pathname(entry), matching(String(cString: name)) { count += 1 }
            _ = archive_read_data_skip(archive)
        }
    }

    /// Whether an archive member is the export: `apple_health_export/export.xml` in exports from 2016 on, and
    /// any `export.xml` (not `export_cda.xml`) in older or repacked ones.
    static func isExportXML(_ name: String) -> Bool {
        name == "export.xml" || name.hasSuffix("/export.xml")
    }
}

/// The two exports Cairn reads.
public enum HealthExportFormat: Sendable, Equatable {
    /// Apple Health's `export.zip` or `export.xml` (`HealthExportReader`).
    case appleHealth
    /// Google Health Connect's zip with `health_connect_export.db` (`HealthConnectExport`).
    case healthConnect
}

/// Where an export is read from.
public enum HealthExportSource: Sendable {
    /// A file on disk, streamed in chunks.
    case file(URL)
    /// The bytes of an export already in memory (an upload), read where they are.
    case bytes(Data)
}
