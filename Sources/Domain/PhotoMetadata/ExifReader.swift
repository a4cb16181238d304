import Foundation

// INTERFACE PINNED BY THE INTEGRATOR (see MetadataInspector.swift).

/// When a photo was taken, as the camera recorded it: DateTimeOriginal plus OffsetTimeOriginal when present.
public struct CaptureDate: Sendable, Equatable, Codable {
    /// Local wall-clock time as written by the camera, "yyyy-MM-dd'T'HH:mm:ss".
    public let localDateTime: String
    /// The camera's UTC offset in seconds (OffsetTimeOriginal), when it wrote one.
    public let utcOffsetSeconds: Int?
    /// A capture date as the camera wrote it.
    public init(localDateTime: String, utcOffsetSeconds: Int?) {
        self.localDateTime = localDateTime
        self.utcOffsetSeconds = utcOffsetSeconds
    }
    /// The instant, when the offset is known; nil otherwise (a local time alone is not an instant).
    public var instant: Date? {
        guard let offset = utcOffsetSeconds else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        f.timeZone = TimeZone(secondsFromGMT: offset)
        return f.date(from: localDateTime)
    }
}

/// What Cairn needs from an EXIF block.
public struct ExifSummary: Sendable, Equatable {
    /// EXIF orientation 1-8, nil when absent.
    public var orientation: Int?
    /// DateTimeOriginal (+ OffsetTimeOriginal), else DateTimeDigitized (+ OffsetTimeDigitized); nil when neither.
    public var captureDate: CaptureDate?
    /// IFD0 points at a GPS IFD.
    public var hasGPS: Bool
    /// A MakerNote tag (0x927C) is present.
    public var hasMakerNotes: Bool
    /// IFD1 (the thumbnail directory) has entries.
    public var hasThumbnail: Bool
    /// A summary with the given values.
    public init(
        orientation: Int? = nil, captureDate: CaptureDate? = nil, hasGPS: Bool = false,
        hasMakerNotes: Bool = false, hasThumbnail: Bool = false
    ) {
        self.orientation = orientation
        self.captureDate = captureDate
        self.hasGPS = hasGPS
        self.hasMakerNotes = hasMakerNotes
        self.hasThumbnail = hasThumbnail
    }
}

/// Parses an EXIF block: a TIFF structure, with or without the "Exif\0\0" prefix (as in JPEG APP1, PNG
/// eXIf, HEIF, or libvips' "exif-data" field).
///
/// The capture date is DateTimeOriginal (0x9003) with OffsetTimeOriginal (0x9011); when the camera wrote no
/// DateTimeOriginal it falls back to DateTimeDigitized (0x9004) with OffsetTimeDigitized (0x9012). DateTime
/// (0x0132) is never used: it is the time the file was last changed, not when the photo was taken.
public enum ExifReader {
    /// Reads orientation, capture date and the presence of GPS, maker notes and a thumbnail.
    /// Throws `MetadataError.malformed` when the bytes are not a TIFF structure with a readable first IFD.
    public static func read(_ exif: Data) throws -> ExifSummary {
        let tiff = try exif.withByteView { view in try TIFFStructure.parse(view.droppingExifPrefix()) }
        return tiff.summary
    }

    /// The EXIF block of a JPEG or PNG file, if it has one: the TIFF structure (starting "II" or "MM") without
    /// the "Exif\0\0" prefix, ready for `read(_:)`. Only the markers before the first scan of a JPEG are read.
    /// Throws `MetadataError` when the file is not a readable JPEG or PNG (`.unsupportedContainer` for HEIF
    /// and WebP).
    public static func exifBlock(in fileData: Data) throws -> Data? {
        switch ImageContainer.detect(fileData) {
        case .jpeg:
            return try fileData.withByteView { view in
                var found: Data?
                try JPEGWalker.walk(view, stopAtFirstScan: true) { segment in
                    guard segment.marker == 0xE1, segment.payload.hasBytes(exifPrefix, at: 0),
                        let block = segment.payload.data(6, length: segment.payload.count - 6)
                    else { return true }
                    found = block
                    return false
                }
                return found
            }
        case .png:
            return try fileData.withByteView { view in
                var found: Data?
                try PNGWalker.walk(view) { chunk in
                    guard chunk.type == "eXIf" else { return true }
                    let tiff = chunk.data.droppingExifPrefix()
                    found = tiff.data(0, length: tiff.count)
                    return false
                }
                return found
            }
        case .heif, .webp:
            throw MetadataError.unsupportedContainer(ImageContainer.detect(fileData))
        case .unknown:
            throw MetadataError.notAnImage
        }
    }
}

/// "Exif\0\0", the prefix of a JPEG APP1 EXIF payload.
let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

extension ByteView {
    /// The view without a leading "Exif\0\0", when it has one.
    func droppingExifPrefix() -> ByteView {
        hasBytes(exifPrefix, at: 0) ? (slice(6, length: count - 6) ?? self) : self
    }
}

/// What a TIFF (EXIF) structure holds that Cairn cares about. Sizes are in bytes.
struct TIFFStructure {
    var orientation: Int?
    var captureDate: CaptureDate?
    /// Present when IFD0 points at a GPS IFD; the size of that IFD's directory (0 when it cannot be read).
    var gpsBytes: Int?
    /// Present when a MakerNote tag is there; its declared size.
    var makerNoteBytes: Int?
    /// Present when IFD1 (the thumbnail IFD) has entries; the thumbnail's size, or the IFD's size.
    var thumbnailBytes: Int?

    var summary: ExifSummary {
        ExifSummary(
            orientation: orientation, captureDate: captureDate, hasGPS: gpsBytes != nil,
            hasMakerNotes: makerNoteBytes != nil, hasThumbnail: thumbnailBytes != nil)
    }

    struct Entry {
        let tag: Int
        let type: Int
        let count: Int
        /// Offset of the value inside the TIFF structure (inline or pointed-to); nil when out of range.
        let valueOffset: Int?
        let valueLength: Int
    }

    struct IFD {
        let entries: [Entry]
        let nextOffset: Int
        let byteCount: Int
        func entry(_ tag: Int) -> Entry? { entries.first { $0.tag == tag } }
    }

    static func typeSize(_ type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return 0
        }
    }

    /// Parses the TIFF header and IFD0, then follows the EXIF, GPS and IFD1 pointers once each.
    static func parse(_ view: ByteView) throws -> TIFFStructure {
        let little: Bool
        if view.hasBytes([0x49, 0x49, 0x2A, 0x00], at: 0) {
            little = true
        } else if view.hasBytes([0x4D, 0x4D, 0x00, 0x2A], at: 0) {
            little = false
        } else {
            throw MetadataError.malformed("EXIF header")
        }
        guard let ifd0Offset = view.u32(4, littleEndian: little),
            let ifd0 = readIFD(view, at: ifd0Offset, little: little)
        else {
            throw MetadataError.malformed("EXIF first directory")
        }
        var visited: Set<Int> = [ifd0Offset]
        var result = TIFFStructure()

        if let entry = ifd0.entry(0x0112), let value = unsignedValue(view, entry, little: little), (1...8).contains(value) {
            result.orientation = value
        }

        var exifIFD: IFD?
        if let pointer = ifd0.entry(0x8769), let offset = unsignedValue(view, pointer, little: little),
            visited.insert(offset).inserted
        {
            exifIFD = readIFD(view, at: offset, little: little)
        }
        if let pointer = ifd0.entry(0x8825) {
            var size = 0
            if let offset = unsignedValue(view, pointer, little: little), visited.insert(offset).inserted,
                let gps = readIFD(view, at: offset, little: little)
            {
                size = gps.byteCount
            }
            result.gpsBytes = size
        }
        for ifd in [exifIFD, ifd0].compactMap({ $0 }) {
            if let note = ifd.entry(0x927C), note.count > 0 {
                result.makerNoteBytes = note.valueLength
                break
            }
        }
        if let exif = exifIFD {
            result.captureDate =
                captureDate(view, exif, dateTag: 0x9003, offsetTag: 0x9011, little: little)
                ?? captureDate(view, exif, dateTag: 0x9004, offsetTag: 0x9012, little: little)
        }
        if ifd0.nextOffset != 0, visited.insert(ifd0.nextOffset).inserted,
            let ifd1 = readIFD(view, at: ifd0.nextOffset, little: little), !ifd1.entries.isEmpty
        {
            if let length = ifd1.entry(0x0202).flatMap({ unsignedValue(view, $0, little: little) }), length > 0 {
                result.thumbnailBytes = length
            } else if let strips = ifd1.entry(0x0117), strips.count == 1,
                let length = unsignedValue(view, strips, little: little), length > 0
            {
                result.thumbnailBytes = length
            } else {
                result.thumbnailBytes = ifd1.byteCount
            }
        }
        return result
    }

    /// The directory at `offset`, or nil when it does not fit in the structure.
    static func readIFD(_ view: ByteView, at offset: Int, little: Bool) -> IFD? {
        guard offset >= 8, let count = view.u16(offset, littleEndian: little) else { return nil }
        let tableLength = 2 + 12 * count
        guard view.contains(offset, length: tableLength) else { return nil }
        let next = view.u32(offset + tableLength, littleEndian: little) ?? 0
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let base = offset + 2 + 12 * index
            guard let tag = view.u16(base, littleEndian: little), let type = view.u16(base + 2, littleEndian: little),
                let n = view.u32(base + 4, littleEndian: little)
            else { return nil }
            let length = n.multipliedReportingOverflow(by: typeSize(type))
            let valueLength = length.overflow ? Int.max : length.partialValue
            var valueOffset: Int?
            if valueLength <= 4 {
                valueOffset = base + 8
            } else if let pointer = view.u32(base + 8, littleEndian: little), view.contains(pointer, length: valueLength) {
                valueOffset = pointer
            }
            entries.append(Entry(tag: tag, type: type, count: n, valueOffset: valueOffset, valueLength: valueLength))
        }
        return IFD(entries: entries, nextOffset: next, byteCount: tableLength + 4)
    }

    /// The first value of a BYTE/SHORT/LONG/IFD entry.
    static func unsignedValue(_ view: ByteView, _ entry: Entry, little: Bool) -> Int? {
        guard entry.count >= 1, let at = entry.valueOffset else { return nil }
        switch entry.type {
        case 1: return view.u8(at).map(Int.init)
        case 3: return view.u16(at, littleEndian: little)
        case 4, 13: return view.u32(at, littleEndian: little)
        default: return nil
        }
    }

    /// An ASCII (or UNDEFINED) value up to its first NUL, trimmed of spaces.
    static func text(_ view: ByteView, _ entry: Entry) -> String? {
        guard entry.type == 2 || entry.type == 7, let at = entry.valueOffset,
            let bytes = view.slice(at, length: min(entry.valueLength, 64))
        else { return nil }
        var characters: [UInt8] = []
        for index in 0..<bytes.count {
            guard let byte = bytes.u8(index), byte != 0 else { break }
            guard byte < 0x80 else { return nil }
            characters.append(byte)
        }
        return String(decoding: characters, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    static func captureDate(_ view: ByteView, _ ifd: IFD, dateTag: Int, offsetTag: Int, little: Bool) -> CaptureDate? {
        guard let entry = ifd.entry(dateTag), let raw = text(view, entry), let local = localDateTime(raw) else {
            return nil
        }
        let offset = ifd.entry(offsetTag).flatMap { text(view, $0) }.flatMap(utcOffsetSeconds)
        return CaptureDate(localDateTime: local, utcOffsetSeconds: offset)
    }

    /// "2024:05:06 07:08:09" -> "2024-05-06T07:08:09"; nil for blank, zero or impossible values.
    static func localDateTime(_ raw: String) -> String? {
        let chars = Array(raw.utf8)
        guard chars.count >= 19 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? {
            var value = 0
            for index in from..<from + length {
                let c = chars[index]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        let dateSeparators: Set<UInt8> = [0x3A, 0x2D]  // ':' or '-'
        guard dateSeparators.contains(chars[4]), dateSeparators.contains(chars[7]),
            chars[10] == 0x20 || chars[10] == 0x54, chars[13] == 0x3A, chars[16] == 0x3A,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            year > 0, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    /// "+02:00" -> 7200, "-05:30" -> -19800; nil when not of that form or beyond 14 hours.
    static func utcOffsetSeconds(_ raw: String) -> Int? {
        let chars = Array(raw.utf8)
        guard chars.count == 6, chars[0] == 0x2B || chars[0] == 0x2D, chars[3] == 0x3A else { return nil }
        let digits = [chars[1], chars[2], chars[4], chars[5]]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let hours = Int(digits[0] - 0x30) * 10 + Int(digits[1] - 0x30)
        let minutes = Int(digits[2] - 0x30) * 10 + Int(digits[3] - 0x30)
        guard minutes < 60, hours * 60 + minutes <= 14 * 60 else { return nil }
        let seconds = (hours * 60 + minutes) * 60
        return chars[0] == 0x2D ? -seconds : seconds
    }
}
