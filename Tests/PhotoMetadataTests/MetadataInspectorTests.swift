import CairnCore
import CairnTestSupport
import Foundation
import PhotoMetadata
import Testing

/// One APPn/COM segment and what the inspector must call it.
struct SegmentCase: Sendable, CustomStringConvertible {
    let marker: UInt8
    let payload: [UInt8]
    let kind: MetadataKind
    let location: String
    var description: String { location }
}

@Suite struct MetadataInspectorTests {
    // MARK: container detection

    @Test func tellsContainersApartByTheirSignatures() {
        #expect(ImageContainer.detect(JPEGBuilder.jpeg()) == .jpeg)
        #expect(ImageContainer.detect(PNGBuilder.png()) == .png)
        #expect(ImageContainer.detect(Data("RIFF\u{10}\0\0\0WEBPVP8L".utf8)) == .webp)
        #expect(ImageContainer.detect(Data([0, 0, 0, 24] + Bytes.ascii("ftypheic") + [0, 0, 0, 0] + Bytes.ascii("mif1heic"))) == .heif)
        #expect(ImageContainer.detect(Data([0, 0, 0, 24] + Bytes.ascii("ftypmp42") + [0, 0, 0, 0] + Bytes.ascii("isommif1"))) == .heif)
    }

    @Test(arguments: [
        Data(), Data([0xFF]), Data([0xFF, 0xD8]), Data("RIFF\0\0\0\0AVI ".utf8),
        Data([0, 0, 0, 24] + Bytes.ascii("ftypmp42") + [0, 0, 0, 0] + Bytes.ascii("isomavc1")),
        Data("GIF89a".utf8),
    ])
    func callsAnythingElseUnknown(bytes: Data) {
        #expect(ImageContainer.detect(bytes) == .unknown)
    }

    @Test func refusesBytesThatAreNoImage() {
        #expect(throws: MetadataError.notAnImage) { try MetadataInspector.inspect(Data()) }
        #expect(throws: MetadataError.notAnImage) { try MetadataInspector.inspect(Data("hello, world".utf8)) }
    }

    @Test func saysHEIFAndWebPAreNotInspected() {
        let heif = Data([0, 0, 0, 16] + Bytes.ascii("ftypheic") + [0, 0, 0, 0])
        #expect(throws: MetadataError.unsupportedContainer(.heif)) { try MetadataInspector.inspect(heif) }
        #expect(throws: MetadataError.unsupportedContainer(.webp)) {
            try MetadataInspector.inspect(Data("RIFF\0\0\0\0WEBPVP8 ".utf8))
        }
        #expect(MetadataError.unsupportedContainer(.heif).userMessage.contains("HEIF"))
    }

    // MARK: JPEG

    @Test func listsOnlyJFIFForABareJPEG() throws {
        let report = try MetadataInspector.inspect(JPEGBuilder.jpeg())
        #expect(report.container == .jpeg)
        #expect(report.items == [MetadataItem(kind: .jfif, location: "APP0 JFIF", byteCount: 14)])
        try MetadataInspector.verifyClean(JPEGBuilder.jpeg())
    }

    static let segmentCases: [SegmentCase] = [
        SegmentCase(marker: 0xE0, payload: Bytes.ascii("JFXX\0") + [0x10, 1, 2], kind: .jfxx, location: "APP0 JFXX"),
        SegmentCase(marker: 0xE0, payload: Bytes.ascii("AVI1\0"), kind: .otherApplication, location: "APP0"),
        SegmentCase(
            marker: 0xE1, payload: Bytes.ascii("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>"), kind: .xmp,
            location: "APP1 XMP"),
        SegmentCase(
            marker: 0xE1, payload: Bytes.ascii("http://ns.adobe.com/xmp/extension/\0") + [UInt8](repeating: 0x41, count: 40),
            kind: .xmp, location: "APP1 extended XMP"),
        SegmentCase(marker: 0xE1, payload: Bytes.ascii("something else"), kind: .otherApplication, location: "APP1"),
        SegmentCase(marker: 0xE2, payload: Bytes.ascii("ICC_PROFILE\0") + [1, 1, 0, 0], kind: .icc, location: "APP2 ICC_PROFILE"),
        SegmentCase(marker: 0xE2, payload: Bytes.ascii("MPF\0") + Bytes.ascii("MM\0*"), kind: .otherApplication, location: "APP2 MPF"),
        SegmentCase(marker: 0xEC, payload: Bytes.ascii("Ducky") + [0, 1], kind: .otherApplication, location: "APP12 Ducky"),
        SegmentCase(marker: 0xEE, payload: Bytes.ascii("Adobe") + [0, 100, 0, 0, 0, 0, 1], kind: .adobe, location: "APP14 Adobe"),
        SegmentCase(marker: 0xEF, payload: [1, 2, 3], kind: .otherApplication, location: "APP15"),
        SegmentCase(marker: 0xFE, payload: Bytes.ascii("a comment"), kind: .comment, location: "COM"),
    ]

    @Test(arguments: segmentCases)
    func namesEachApplicationSegment(_ segmentCase: SegmentCase) throws {
        let data = JPEGBuilder.jpeg([JPEGBuilder.segment(segmentCase.marker, segmentCase.payload)])
        let report = try MetadataInspector.inspect(data)
        #expect(report.items.dropFirst().map(\.kind) == [segmentCase.kind])
        #expect(
            report.items.last
                == MetadataItem(
                    kind: segmentCase.kind, location: segmentCase.location,
                    byteCount: segmentCase.payload.count))
        #expect(throws: MetadataError.notClean([report.items[1]])) { try MetadataInspector.verifyClean(data) }
    }

    @Test func splitsAnExifBlockIntoItsGPSMakerNoteAndThumbnail() throws {
        let exif = [Entry(tag: 0x927C, value: .undefined([UInt8](repeating: 7, count: 20)))]
        let tiff = TIFFBuilder.camera(exif: exif, gps: true, thumbnail: true).build()
        let report = try MetadataInspector.inspect(JPEGBuilder.jpeg([JPEGBuilder.exifSegment(tiff)]))
        #expect(report.kinds == [.jfif, .exif, .gps, .makerNotes, .exifThumbnail])
        #expect(report.items.first { $0.kind == .exif }?.byteCount == tiff.count + 6)
        #expect(report.items.first { $0.kind == .makerNotes }?.byteCount == 20)
        #expect(report.items.first { $0.kind == .exifThumbnail }?.byteCount == 1234)
    }

    @Test func stillListsAnExifBlockItCannotParse() throws {
        let report = try MetadataInspector.inspect(JPEGBuilder.jpeg([JPEGBuilder.segment(0xE1, Bytes.ascii("Exif\0\0junk"))]))
        #expect(report.kinds == [.jfif, .exif])
    }

    @Test func separatesIPTCFromOtherPhotoshopResources() throws {
        func resource(_ id: Int, _ data: [UInt8]) -> [UInt8] {
            Bytes.ascii("8BIM") + Bytes.be16(id) + [0, 0] + Bytes.be32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
        }
        let header = Bytes.ascii("Photoshop 3.0\0")
        let iptcOnly = JPEGBuilder.segment(0xED, header + resource(0x0404, [0x1C, 2, 25, 0, 5] + Bytes.ascii("beach")))
        #expect(
            try MetadataInspector.inspect(JPEGBuilder.jpeg([iptcOnly])).items.dropFirst()
                == [MetadataItem(kind: .iptc, location: "APP13 Photoshop IPTC", byteCount: 10)])
        let both = JPEGBuilder.segment(0xED, header + resource(0x0404, [1, 2, 3]) + resource(0x03ED, [UInt8](repeating: 0, count: 16)))
        #expect(try MetadataInspector.inspect(JPEGBuilder.jpeg([both])).kinds == [.jfif, .iptc, .photoshop])
        let other = JPEGBuilder.segment(0xED, header + resource(0x040C, [9, 9]))
        #expect(try MetadataInspector.inspect(JPEGBuilder.jpeg([other])).kinds == [.jfif, .photoshop])
        let garbled = JPEGBuilder.segment(0xED, header + Bytes.ascii("8BI"))
        #expect(try MetadataInspector.inspect(JPEGBuilder.jpeg([garbled])).kinds == [.jfif, .photoshop])
    }

    @Test func measuresTheBytesAfterEndOfImage() throws {
        // The trailer looks like a COM segment: it must not be parsed as one.
        let trailer = JPEGBuilder.segment(0xFE, Bytes.ascii("hidden")) + [0xFF, 0xD9]
        let report = try MetadataInspector.inspect(JPEGBuilder.jpeg(trailer: trailer))
        #expect(report.items.last == MetadataItem(kind: .trailingData, location: "after EOI", byteCount: trailer.count))
        #expect(!report.kinds.contains(.comment))
    }

    @Test func walksPastEveryScanOfAJPEGWithSeveralScans() throws {
        // Two scans, with a table and a comment between them; stuffed bytes and RSTn inside both scans.
        var bytes: [UInt8] = [0xFF, 0xD8] + JPEGBuilder.jfif + JPEGBuilder.frame
        bytes += JPEGBuilder.scanHeader + JPEGBuilder.entropy
        bytes += JPEGBuilder.huffmanTables
        bytes += JPEGBuilder.segment(0xFE, Bytes.ascii("between scans"))
        bytes += JPEGBuilder.scanHeader + JPEGBuilder.entropy + [0xFF, 0xFF, 0xD9]
        let report = try MetadataInspector.inspect(Data(bytes))
        #expect(report.kinds == [.jfif, .comment])
    }

    @Test func saysItCouldNotCheckTheScansOfAProgressiveJPEG() throws {
        let progressive = [UInt8](JPEGBuilder.jpeg()).replacingFrameMarker(with: 0xC2)
        let report = try MetadataInspector.inspect(Data(progressive))
        #expect(report.kinds == [.jfif, .undecodedScan])
        #expect(report.items.last?.location == "scan: progressive, not decoded")
    }

    @Test func acceptsFillBytesAndFlagsATEMMarkerBetweenSegments() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF] + JPEGBuilder.jfif + [0xFF, 0x01] + JPEGBuilder.frame
        bytes += JPEGBuilder.scanHeader + JPEGBuilder.entropy + [0xFF, 0xD9]
        #expect(
            try MetadataInspector.inspect(Data(bytes)).items
                == [
                    MetadataItem(kind: .jfif, location: "APP0 JFIF", byteCount: 14),
                    MetadataItem(kind: .unknownSegment, location: "TEM", byteCount: 0),
                ])
        var clean: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF] + JPEGBuilder.jfif + JPEGBuilder.frame
        clean += JPEGBuilder.scanHeader + JPEGBuilder.entropy + [0xFF, 0xD9]
        #expect(try MetadataInspector.inspect(Data(clean)).kinds == [.jfif])
    }

    @Test func reportsAJPEGCutShort() {
        let whole = [UInt8](JPEGBuilder.jpeg())
        #expect(throws: MetadataError.truncated("no end-of-image marker")) {
            try MetadataInspector.inspect(Data(whole.dropLast(2)))
        }
        #expect(throws: MetadataError.truncated("segment runs past the end")) {
            try MetadataInspector.inspect(Data(whole.prefix(10)))
        }
        #expect(throws: MetadataError.truncated("no end-of-image marker")) {
            try MetadataInspector.inspect(Data([0xFF, 0xD8, 0xFF]))
        }
    }

    @Test func reportsABrokenJPEG() {
        let badLength: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xD9]
        #expect(throws: MetadataError.malformed("segment length")) { try MetadataInspector.inspect(Data(badLength)) }
        let secondStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD8, 0xFF, 0xD9]
        #expect(throws: MetadataError.malformed("unexpected marker")) { try MetadataInspector.inspect(Data(secondStart)) }
    }

    // MARK: PNG

    @Test func listsNothingForABarePNGAndSkipsDrawingChunks() throws {
        let drawing = [
            PNGBuilder.chunk("gAMA", Bytes.be32(45455)), PNGBuilder.chunk("pHYs", Bytes.be32(2835) + Bytes.be32(2835) + [1]),
            PNGBuilder.chunk("sRGB", [0]), PNGBuilder.chunk("bKGD", [0, 0, 0, 0, 0, 0]),
        ]
        let report = try MetadataInspector.inspect(PNGBuilder.png(drawing))
        #expect(report == MetadataReport(container: .png, items: []))
        try MetadataInspector.verifyClean(PNGBuilder.png(drawing), allowList: MetadataAllowList(allowed: []))
    }

    @Test func namesEachPNGMetadataChunk() throws {
        let tiff = TIFFBuilder.camera(exif: [], gps: true).build()
        let chunks = [
            PNGBuilder.chunk("tEXt", Bytes.ascii("Comment\0hello")),
            PNGBuilder.chunk("zTXt", Bytes.ascii("Raw profile type iptc\0\0") + [0x78, 0x9C]),
            PNGBuilder.chunk("iTXt", Bytes.ascii("XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta/>")),
            PNGBuilder.chunk("iTXt", Bytes.ascii("Title\0\0\0en\0\0Holiday")),
            PNGBuilder.chunk("eXIf", [UInt8](tiff)),
            PNGBuilder.chunk("tIME", [7, 232, 5, 6, 7, 8, 9]),
            PNGBuilder.chunk("iCCP", Bytes.ascii("icc\0\0") + [0x78, 0x9C]),
            PNGBuilder.chunk("prVt", [1, 2, 3]),
        ]
        let report = try MetadataInspector.inspect(PNGBuilder.png(chunks, trailer: [1, 2, 3, 4, 5]))
        #expect(
            report.items.map(\.kind) == [
                .text, .iptc, .xmp, .text, .exif, .gps, .timestamp, .icc, .otherApplication,
                .trailingData,
            ])
        #expect(
            report.items.map(\.location) == [
                "PNG chunk tEXt", "PNG chunk zTXt", "PNG chunk iTXt", "PNG chunk iTXt",
                "PNG chunk eXIf", "PNG chunk eXIf GPS IFD", "PNG chunk tIME",
                "PNG chunk iCCP", "PNG chunk prVt", "after IEND",
            ])
        #expect(report.items.last?.byteCount == 5)
    }

    @Test func rejectsAPNGChunkWithAWrongChecksum() {
        var chunk = PNGBuilder.chunk("tEXt", Bytes.ascii("Comment\0hello"))
        chunk[chunk.count - 1] ^= 0x01
        #expect(throws: MetadataError.malformed("chunk checksum")) { try MetadataInspector.inspect(PNGBuilder.png([chunk])) }
    }

    @Test func reportsAPNGCutShortOrOutOfOrder() {
        let whole = [UInt8](PNGBuilder.png())
        #expect(throws: MetadataError.truncated("no IEND chunk")) { try MetadataInspector.inspect(Data(whole.dropLast(12))) }
        #expect(throws: MetadataError.truncated("chunk runs past the end")) { try MetadataInspector.inspect(Data(whole.dropLast(3))) }
        let noHeader = Data(PNGBuilder.signature + PNGBuilder.pixels + PNGBuilder.end)
        #expect(throws: MetadataError.malformed("first chunk is not IHDR")) { try MetadataInspector.inspect(noHeader) }
        let badType = Data(PNGBuilder.signature + PNGBuilder.header + Bytes.be32(0) + [0x31, 0x32, 0x33, 0x34, 0, 0, 0, 0])
        #expect(throws: MetadataError.malformed("chunk type")) { try MetadataInspector.inspect(badType) }
    }

    // MARK: verifyClean and the allow-list

    @Test func failsVerificationWithEveryItemTheListDoesNotAllow() throws {
        let data = JPEGBuilder.jpeg([JPEGBuilder.segment(0xFE, Bytes.ascii("my secret note"))], trailer: [0, 0])
        do {
            try MetadataInspector.verifyClean(data)
            Issue.record("verifyClean accepted a file with a comment and a trailer")
        } catch let error as MetadataError {
            guard case .notClean(let items) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(items.map(\.kind) == [.comment, .trailingData])
            #expect(!error.userMessage.contains("secret"))
            #expect(error.userMessage.contains("comment"))
        }
        try MetadataInspector.verifyClean(data, allowList: MetadataAllowList(allowed: [.jfif, .comment, .trailingData]))
    }

    @Test func failsVerificationOfBytesItCannotRead() {
        #expect(throws: MetadataError.self) { try MetadataInspector.verifyClean(Data([0xFF, 0xD8, 0xFF, 0xE0])) }
    }

    @Test func allowsNothingButJFIFInCairnJPEGs() {
        #expect(MetadataAllowList.cairnJPEG.allowed == [.jfif])
    }
}

@Suite struct MetadataErrorWordingTests {
    static let errors: [MetadataError] = [
        .notAnImage, .truncated("no IEND chunk"), .malformed("chunk checksum"), .unsupportedContainer(.heif),
        .unsupportedContainer(.webp), .notClean([MetadataItem(kind: .gps, location: "APP1 Exif GPS IFD", byteCount: 40)]),
    ]

    @Test(arguments: errors)
    func speaksPlainlyWithoutBannedWords(_ error: MetadataError) {
        #expect(!error.userMessage.isEmpty)
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
    }
}

extension Array where Element == UInt8 {
    /// The same bytes with the first SOF0 marker replaced (to make a progressive or arithmetic frame header).
    func replacingFrameMarker(with marker: UInt8) -> [UInt8] {
        var copy = self
        for i in 0..<(count - 1) where copy[i] == 0xFF && copy[i + 1] == 0xC0 {
            copy[i + 1] = marker
            return copy
        }
        return copy
    }
}
