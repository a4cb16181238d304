internal import CArchive
import CairnCore
import Foundation
import Regimen

/// Reads DSLD's bulk JSON download one label record at a time, memory flat whatever its size: a zip (read
/// without extracting) of one JSON file per label or of one large array, or a JSON file itself (one label, or an
/// array of them). Zip or JSON is told by the file's first bytes. Each record's bytes go to `DSLDLabel.record`.
public struct DSLDBulkFile: Sendable {
    /// What reading found.
    public struct Summary: Sendable, Equatable {
        /// Records read as labels.
        public var labels = 0
        /// Records that are not labels (no id or name), left out.
        public var leftOut = 0
        /// The file's size in bytes.
        public var fileBytes: Int64 = 0
        /// Bytes of JSON text read (unpacked).
        public var textBytes: Int64 = 0

        /// A summary.
        public init(labels: Int = 0, leftOut: Int = 0, fileBytes: Int64 = 0, textBytes: Int64 = 0) {
            self.labels = labels
            self.leftOut = leftOut
            self.fileBytes = fileBytes
            self.textBytes = textBytes
        }
    }

    /// The file.
    public let url: URL
    /// Bytes read per step.
    public let chunkSize: Int

    /// A reader of the file at `url`.
    public init(url: URL, chunkSize: Int = 256 << 10) {
        self.url = url
        self.chunkSize = max(4096, chunkSize)
    }

    /// Reads every label, handing each to `onLabel` in file order; decoding runs on a thread of its own beside
    /// `onLabel` (`Handoff`). `progress` gets (bytes of the file read, its size). Throws `LabelDatabaseError`,
    /// `JSONRecordStreamError`, `LabelFileError`, or what `onLabel` throws.
    public func read(
        progress: (_ bytesRead: Int64, _ totalBytes: Int64) -> Void = { _, _ in },
        onLabel: (LabelRecord) throws -> Void
    ) throws -> Summary {
        enum Item: Sendable {
            case label(LabelRecord)
            case position(Int64, Int64)
        }
        let reader = self
        return try Handoff.run(
            chunk: 256,
            produce: { emit in
                try reader.readSequentially(progress: { try emit(.position($0, $1)) }) { try emit(.label($0)) }
            },
            consume: { (item: Item) in
                switch item {
                case .label(let label): try onLabel(label)
                case .position(let read, let total): progress(read, total)
                }
            })
    }

    /// The same read on the calling thread.
    public func readSequentially(
        progress: (Int64, Int64) throws -> Void, onLabel: (LabelRecord) throws -> Void
    ) throws -> Summary {
        guard let file = fopen(url.path, "rb") else { throw LabelFileError.unreadable }
        var info = stat()
        guard fstat(fileno(file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            fclose(file)
            throw LabelFileError.unreadable
        }
        let fileBytes = Int64(info.st_size)
        var labels = 0
        var leftOut = 0
        var textBytes: Int64 = 0
        var magic = [UInt8](repeating: 0, count: 4)
        let isZip = fread(&magic, 1, 4, file) == 4 && magic == [0x50, 0x4B, 0x03, 0x04]
        var reader = DSLDLabelReader()
        let handle: (UnsafeRawBufferPointer) throws -> Void = { bytes in
            do {
                try onLabel(try reader.record(json: bytes))
                labels += 1
            } catch LabelDatabaseError.notALabel {
                leftOut += 1
            }
        }
        if isZip {
            fclose(file)
            textBytes = try readZip(fileBytes: fileBytes, progress: progress, handle: handle)
        } else {
            defer { fclose(file) }
            rewind(file)
            var stream = JSONRecordStream()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            var read: Int64 = 0
            while true {
                let count = fread(buffer.baseAddress, 1, chunkSize, file)
                if count == 0 {
                    if ferror(file) != 0 { throw LabelFileError.unreadable }
                    break
                }
                read += Int64(count)
                try stream.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), onRecord: handle)
                try progress(read, fileBytes)
            }
            try stream.finish()
            textBytes = read
        }
        return Summary(labels: labels, leftOut: leftOut, fileBytes: fileBytes, textBytes: textBytes)
    }

    /// Every `.json` member of the zip, each split into records.
    /// Returns the bytes of JSON text read.
    private func readZip(fileBytes: Int64, progress: (Int64, Int64) throws -> Void, handle: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        var textBytes: Int64 = 0
        guard let archive = archive_read_new() else { throw LabelFileError.damagedArchive }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, url.path, 64 << 10) == ARCHIVE_OK else { throw LabelFileError.damagedArchive }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var entry: OpaquePointer?
        var members = 0
        while true {
            let rc = archive_read_next_header(archive, &entry)
            if rc == ARCHIVE_EOF { break }
            guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let entry else { throw LabelFileError.damagedArchive }
            let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            guard Self.isLabelMember(name) else {
                _ = archive_read_data_skip(archive)
                continue
            }
            members += 1
            var stream = JSONRecordStream()
            while true {
                let count = archive_read_data(archive, buffer.baseAddress, chunkSize)
                if count < 0 { throw LabelFileError.damagedArchive }
                if count == 0 { break }
                textBytes += Int64(count)
                try stream.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), onRecord: handle)
            }
            try stream.finish()
            try progress(min(archive_filter_bytes(archive, -1), fileBytes), fileBytes)
        }
        guard members > 0 else { throw LabelDatabaseError.noLabels }
        try progress(fileBytes, fileBytes)
        return textBytes
    }

    /// Whether a zip member is read: a `.json` file, not macOS's resource forks (`__MACOSX/`, `._name`).
    static func isLabelMember(_ name: String) -> Bool {
        let last = (name as NSString).lastPathComponent
        return name.lowercased().hasSuffix(".json") && !name.hasPrefix("__MACOSX/") && !last.hasPrefix("._")
    }
}

/// Why the label file could not be read.
public enum LabelFileError: CairnError, Equatable {
    /// The file cannot be opened or read (or is not a regular file).
    case unreadable
    /// The zip archive is damaged.
    case damagedArchive

    public var userMessage: String {
        switch self {
        case .unreadable: return "The label file cannot be read. Check the path and that it is DSLD's downloaded file."
        case .damagedArchive: return "The zip file is damaged or not a zip archive. Download DSLD's file again."
        }
    }
}
