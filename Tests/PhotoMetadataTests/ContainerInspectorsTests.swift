import Foundation
import Testing

@testable import PhotoMetadata

/// The JPEG inspector flags every segment and every byte the picture does not need, one hand-built case each
/// (the same cases made with libjpeg and checked against exiftool are in ReliabilityTests/HiddenJPEGBytesTests).
@Suite struct JPEGHiddenBytesInspectionTests {
    typealias B = JPEGBuilder
    static let planted = Bytes.ascii("GPS 48.8566 N 2.3522 E Canon EOS")
    static let dnl = B.segment(0xDC, [0, 16])

    static func jpeg(
        head: [UInt8] = B.jfif, frame: [UInt8] = B.frame, beforeScan: [UInt8] = [],
        entropy: [UInt8] = B.entropy, afterScan: [UInt8] = []
    ) -> Data {
        Data([0xFF, 0xD8] + head + frame + beforeScan + B.scanHeader + entropy + afterScan + [0xFF, 0xD9])
    }

    static func items(_ data: Data) throws -> [MetadataItem] {
        try MetadataInspector.inspect(data).items.filter { $0.kind != .jfif }
    }

    @Test func findsNothingInACleanSequentialJPEG() throws {
        #expect(try Self.items(Self.jpeg()) == [])
        try MetadataInspector.verifyClean(Self.jpeg())
    }

    @Test func flagsADNLSegmentBeforeOrAfterTheScan() throws {
        let expected = [MetadataItem(kind: .unknownSegment, location: "DNL", byteCount: 2)]
        #expect(try Self.items(Self.jpeg(beforeScan: Self.dnl)) == expected)
        #expect(try Self.items(Self.jpeg(afterScan: Self.dnl)) == expected)
        #expect(throws: MetadataError.self) { try MetadataInspector.verifyClean(Self.jpeg(afterScan: Self.dnl)) }
    }

    @Test func flagsBytesPaddedIntoTheScanBeforeTheEndOfImage() throws {
        #expect(
            try Self.items(Self.jpeg(entropy: B.entropy + Self.planted))
                == [MetadataItem(kind: .scanPadding, location: "scan data no block uses", byteCount: Self.planted.count)])
        // Padding that hides 0xFF bytes as stuffed pairs is counted in file bytes.
        #expect(
            try Self.items(Self.jpeg(entropy: B.entropy + [0x41, 0xFF, 0x00, 0x42]))
                == [MetadataItem(kind: .scanPadding, location: "scan data no block uses", byteCount: 4)])
    }

    @Test func flagsBytesPaddedBeforeARestartMarker() throws {
        var entropy = B.entropy
        entropy.insert(contentsOf: Self.planted, at: 32)  // after the first block, before RST0
        #expect(
            try Self.items(Self.jpeg(entropy: entropy))
                == [MetadataItem(kind: .scanPadding, location: "scan data no block uses", byteCount: Self.planted.count)])
    }

    @Test func flagsRestartMarkersOutOfSequenceAfterTheLastBlockOrOutsideAScan() throws {
        var swapped = B.entropy
        swapped[33] = 0xD2
        swapped[39] = 0xD0
        #expect(try Self.items(Self.jpeg(entropy: swapped)).map(\.kind) == [.restartMarkers])
        #expect(try Self.items(Self.jpeg(entropy: B.entropy + [0xFF, 0xD3])).map(\.kind) == [.restartMarkers])
        #expect(try Self.items(Self.jpeg(beforeScan: [0xFF, 0xD5])).map(\.kind) == [.restartMarkers])
        // One missing: the next block reads as padding, the next marker as out of sequence, the scan as short.
        var missing = B.entropy
        missing.removeSubrange(35...36)
        #expect(Set(try Self.items(Self.jpeg(entropy: missing)).map(\.kind)) == [.scanPadding, .restartMarkers, .undecodedScan])
        // Fill bytes before a marker are allowed and are not padding.
        #expect(try Self.items(Self.jpeg(entropy: B.entropy + [0xFF, 0xFF])) == [])
    }

    @Test func flagsBytesBetweenSegmentsAndPastASegmentsTables() throws {
        #expect(
            try Self.items(Self.jpeg(head: B.jfif + Self.planted))
                == [MetadataItem(kind: .strayBytes, location: "between segments", byteCount: Self.planted.count)])
        let longTables = B.segment(0xDB, [0] + [UInt8](repeating: 1, count: 64) + Self.planted)
        #expect(
            try Self.items(Self.jpeg(beforeScan: longTables)).contains(
                MetadataItem(kind: .strayBytes, location: "DQT past its tables", byteCount: Self.planted.count)))
        let thumbnail = B.segment(0xE0, Bytes.ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0x10, 0x20, 0x30])
        #expect(
            try Self.items(Self.jpeg(head: thumbnail))
                == [MetadataItem(kind: .strayBytes, location: "APP0 JFIF thumbnail", byteCount: 3)])
    }

    @Test func flagsTablesThatNoFrameOrScanUses() throws {
        let spareQuantisation = B.segment(0xDB, [2] + Self.planted + [UInt8](repeating: 1, count: 64 - Self.planted.count))
        #expect(
            try Self.items(Self.jpeg(beforeScan: spareQuantisation))
                == [MetadataItem(kind: .strayBytes, location: "DQT table no frame uses", byteCount: 65)])
        let spareHuffman = B.segment(
            0xC4,
            [0x01, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(Self.planted.count), 0, 0, 0, 0, 0, 0, 0]
                + Self.planted)
        #expect(
            try Self.items(Self.jpeg(beforeScan: spareHuffman))
                == [MetadataItem(kind: .strayBytes, location: "DHT table no scan uses", byteCount: 17 + Self.planted.count)])
    }

    @Test func flagsMarkersCairnNeverWrites() throws {
        #expect(
            try Self.items(Self.jpeg(beforeScan: B.segment(0xF5, Self.planted)))
                == [MetadataItem(kind: .unknownSegment, location: "JPG5", byteCount: Self.planted.count)])
        #expect(
            try Self.items(Self.jpeg(afterScan: B.segment(0x4F, Self.planted)))
                == [MetadataItem(kind: .unknownSegment, location: "marker 0x4F", byteCount: Self.planted.count)])
        let secondFrame = B.segment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0])
        #expect(try Self.items(Self.jpeg(afterScan: secondFrame)).map(\.kind) == [.unknownSegment])
    }

    @Test func saysWhenAScanCannotBeDecoded() throws {
        let arithmetic = [UInt8](Self.jpeg()).replacingFrameMarker(with: 0xC9)
        #expect(try Self.items(Data(arithmetic)).map(\.location) == ["scan: arithmetic-coded, not decoded"])
        // A DC table holding only the code '0': the first block's one-bits are no code at all.
        let narrow = B.segment(
            0xC4,
            [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0]
                + [0x10, 2] + [UInt8](repeating: 0, count: 15) + [0x00, 0x01])
        let frame =
            B.segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + narrow
            + B.segment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0]) + B.segment(0xDD, [0, 1])
        #expect(try Self.items(Self.jpeg(frame: frame)).map(\.location).first == "scan: an invalid DC code")
        // A frame whose height only a DNL would give.
        let noHeight =
            B.segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + B.huffmanTables
            + B.segment(0xC0, [8, 0, 0, 0, 16, 1, 1, 0x11, 0]) + B.segment(0xDD, [0, 1])
        #expect(try Self.items(Self.jpeg(frame: noHeight, afterScan: Self.dnl)).map(\.kind) == [.undecodedScan, .unknownSegment])
    }
}
