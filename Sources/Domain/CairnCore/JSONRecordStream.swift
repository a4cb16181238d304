import Foundation

/// Splits a JSON text given in chunks into its records, one at a time, without reading the whole text: a record is
/// the top-level object itself, or each object of a top-level array (`[{...}, {...}]`). Only strings, escapes and
/// brace depth are followed; what is inside a record is left to the decoder that receives its bytes, so memory holds
/// one record at a time however long the text (a bulk file of 215,000 labels in one array).
///
/// Refuses (`JSONRecordStreamError`) a text whose top level is neither, a record larger than `maximumRecordBytes`,
/// and a text that ends inside a record.
public struct JSONRecordStream {
    /// The largest record accepted, in bytes.
    public let maximumRecordBytes: Int

    private enum Outer { case start, array, afterObject, done }
    private var outer = Outer.start
    private var topIsArray = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var record: [UInt8] = []
    private var arrayClosed = false

    /// A stream at the start of a text.
    public init(maximumRecordBytes: Int = 16 << 20) {
        self.maximumRecordBytes = maximumRecordBytes
    }

    /// Reads `bytes`, the next part of the text, calling `onRecord` with each record's bytes completed in it (valid
    /// only during the call). An error `onRecord` throws is rethrown.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onRecord: (UnsafeRawBufferPointer) throws -> Void) throws {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if depth > 0 {
                // Inside a record: copy the run up to the next byte that can change the state.
                var end = index
                while end < count {
                    let b = bytes[end]
                    if inString {
                        if escaped {
                            escaped = false
                        } else if b == 0x5C {
                            escaped = true
                        } else if b == 0x22 {
                            inString = false
                        }
                    } else if b == 0x22 {
                        inString = true
                    } else if b == 0x7B || b == 0x5B {
                        depth += 1
                    } else if b == 0x7D || b == 0x5D {
                        depth -= 1
                        if depth == 0 {
                            end += 1
                            break
                        }
                    }
                    end += 1
                }
                guard record.count + (end - index) <= maximumRecordBytes else { throw JSONRecordStreamError.recordTooLarge }
                record.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
                index = end
                if depth == 0 {
                    try record.withUnsafeBytes { try onRecord($0) }
                    record.removeAll(keepingCapacity: true)
                    outer = topIsArray ? .afterObject : .done
                }
                continue
            }
            index += 1
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { continue }
            // A UTF-8 byte order mark before the text.
            if outer == .start, byte == 0xEF || byte == 0xBB || byte == 0xBF { continue }
            switch (outer, byte) {
            case (.start, 0x5B):
                topIsArray = true
                outer = .array
            case (.start, 0x7B), (.array, 0x7B):
                depth = 1
                record.append(byte)
            case (.array, 0x5D), (.afterObject, 0x5D):
                outer = .done
                arrayClosed = true
            case (.afterObject, 0x2C):
                outer = .array
            default:
                throw JSONRecordStreamError.notRecords
            }
        }
    }

    /// Says the text has ended: throws when it ended inside a record or an array.
    public func finish() throws {
        guard depth == 0, !topIsArray || arrayClosed else { throw JSONRecordStreamError.cutOff }
    }

    /// True when the text so far was nothing but white space.
    public var isEmpty: Bool { outer == .start && depth == 0 }
}

/// Why a JSON text could not be split into records.
public enum JSONRecordStreamError: CairnError, Equatable {
    /// The text is not an object or an array of objects.
    case notRecords
    /// The text ends in the middle of a record.
    case cutOff
    /// One record is larger than any Cairn reads.
    case recordTooLarge

    public var userMessage: String {
        switch self {
        case .notRecords: return "This file is not JSON records: Cairn reads one object, or an array of objects."
        case .cutOff: return "This file ends in the middle of a record: it may be cut off. Download it again."
        case .recordTooLarge: return "A record in this file is far larger than any label: it is not a label file."
        }
    }
}
