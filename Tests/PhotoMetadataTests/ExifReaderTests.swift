import CairnTestSupport
import Foundation
import PhotoMetadata
import Testing

typealias Entry = TIFFBuilder.Entry

@Suite struct ExifReaderTests {
    static let original = [
        Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09")),
        Entry(tag: 0x9011, value: .ascii("+02:00")),
    ]

    @Test(arguments: [true, false])
    func readsCaptureDateOffsetAndOrientationInEitherByteOrder(littleEndian: Bool) throws {
        let tiff = TIFFBuilder.camera(littleEndian: littleEndian, exif: Self.original).build()
        let summary = try ExifReader.read(tiff)
        #expect(summary.orientation == 6)
        #expect(summary.captureDate == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: 7200))
        #expect(summary.hasGPS == false && summary.hasMakerNotes == false && summary.hasThumbnail == false)
    }

    @Test func acceptsTheExifPrefixOfAJPEGSegment() throws {
        let tiff = TIFFBuilder.camera(exif: Self.original).build()
        let summary = try ExifReader.read(Data("Exif".utf8) + Data([0, 0]) + tiff)
        #expect(summary.captureDate?.localDateTime == "2024-05-06T07:08:09")
    }

    @Test func turnsTheDateAndOffsetIntoAnInstant() throws {
        let summary = try ExifReader.read(TIFFBuilder.camera(exif: Self.original).build())
        let instant = try #require(summary.captureDate?.instant)
        #expect(instant == Date(timeIntervalSince1970: 1_714_972_089))  // 2024-05-06T05:08:09Z
    }

    @Test func keepsALocalTimeWithoutAnInstantWhenNoOffsetWasWritten() throws {
        let exif = [Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09"))]
        let date = try #require(try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate)
        #expect(date.utcOffsetSeconds == nil)
        #expect(date.instant == nil)
    }

    @Test func readsNegativeAndHalfHourOffsets() throws {
        let exif = [Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09")), Entry(tag: 0x9011, value: .ascii("-05:30"))]
        #expect(try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate?.utcOffsetSeconds == -19800)
    }

    @Test func ignoresAnOffsetThatIsNotOfTheFormPlusHHColonMM() throws {
        let exif = [Entry(tag: 0x9003, value: .ascii("2024:05:06 07:08:09")), Entry(tag: 0x9011, value: .ascii("+2"))]
        let date = try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate
        #expect(date == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: nil))
    }

    @Test func fallsBackToDateTimeDigitizedWithItsOwnOffset() throws {
        let exif = [
            Entry(tag: 0x9004, value: .ascii("2023:12:31 23:59:58")), Entry(tag: 0x9012, value: .ascii("-08:00")),
            Entry(tag: 0x9011, value: .ascii("+02:00")),
        ]
        let date = try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate
        #expect(date == CaptureDate(localDateTime: "2023-12-31T23:59:58", utcOffsetSeconds: -28800))
    }

    @Test func prefersDateTimeOriginalOverDateTimeDigitized() throws {
        let exif = Self.original + [Entry(tag: 0x9004, value: .ascii("2023:12:31 23:59:58"))]
        #expect(try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate?.localDateTime == "2024-05-06T07:08:09")
    }

    @Test func neverTakesTheFileChangeDateAsTheCaptureDate() throws {
        var builder = TIFFBuilder.camera(exif: [])
        builder.ifds[0].append(Entry(tag: 0x0132, value: .ascii("2024:05:06 07:08:09")))
        #expect(try ExifReader.read(builder.build()).captureDate == nil)
    }

    @Test(arguments: ["    :  :     :  :  ", "0000:00:00 00:00:00", "2024:13:06 07:08:09", "2024:05:06", "yesterday"])
    func treatsABlankOrImpossibleDateAsAbsent(raw: String) throws {
        let exif = [Entry(tag: 0x9003, value: .ascii(raw))]
        #expect(try ExifReader.read(TIFFBuilder.camera(exif: exif).build()).captureDate == nil)
    }

    @Test(arguments: [0, 9, 300])
    func ignoresAnOrientationOutsideOneToEight(value: Int) throws {
        #expect(try ExifReader.read(TIFFBuilder.camera(orientation: value, exif: []).build()).orientation == nil)
    }

    @Test func reportsGPSMakerNotesAndThumbnail() throws {
        let exif = Self.original + [Entry(tag: 0x927C, value: .undefined(Array("Nikon\0\u{2}\u{10}\0\0".utf8)))]
        let summary = try ExifReader.read(TIFFBuilder.camera(exif: exif, gps: true, thumbnail: true).build())
        #expect(summary.hasGPS && summary.hasMakerNotes && summary.hasThumbnail)
    }

    @Test func countsAGPSPointerThatLeadsNowhereAsGPS() throws {
        var builder = TIFFBuilder.camera(exif: Self.original)
        builder.ifds[0].append(Entry(tag: 0x8825, value: .rawOffset(0x7FFF_FFF0)))
        let summary = try ExifReader.read(builder.build())
        #expect(summary.hasGPS)
        #expect(summary.captureDate != nil)
    }

    @Test func survivesDirectoriesThatPointAtThemselves() throws {
        var builder = TIFFBuilder(littleEndian: true)
        builder.ifds = [
            [
                Entry(tag: 0x8769, value: .pointer(0)), Entry(tag: 0x8825, value: .pointer(0)),
                Entry(tag: 0x0112, value: .short(3)),
            ]
        ]
        builder.next[0] = 0
        let summary = try ExifReader.read(builder.build())
        #expect(summary.orientation == 3)
        #expect(summary.hasThumbnail == false)
        #expect(summary.captureDate == nil)
    }

    @Test func ignoresAnExifPointerPastTheEnd() throws {
        var builder = TIFFBuilder(littleEndian: false)
        builder.ifds = [[Entry(tag: 0x8769, value: .rawOffset(1_000_000)), Entry(tag: 0x0112, value: .short(8))]]
        builder.rawNextOfIFD0 = 0xFFFF_FFFF
        let summary = try ExifReader.read(builder.build())
        #expect(summary == ExifSummary(orientation: 8))
    }

    @Test(arguments: [Data(), Data("Exif\0\0".utf8), Data("not a tiff at all".utf8), Data([0x49, 0x49, 0x2A, 0x00])])
    func rejectsBytesThatAreNotATIFFStructure(bytes: Data) {
        #expect(throws: MetadataError.self) { try ExifReader.read(bytes) }
    }

    @Test func rejectsAFirstDirectoryPastTheEnd() {
        let bytes = Data([0x49, 0x49, 0x2A, 0x00, 0x00, 0x10, 0x00, 0x00, 0x05, 0x00])
        #expect(throws: MetadataError.malformed("EXIF first directory")) { try ExifReader.read(bytes) }
    }

    @Test func rejectsADirectoryCutShort() {
        var bytes = TIFFBuilder.camera(exif: Self.original).build()
        bytes = bytes.prefix(14)
        #expect(throws: MetadataError.self) { try ExifReader.read(bytes) }
    }

    // MARK: exifBlock(in:)

    @Test func findsTheExifBlockOfAJPEG() throws {
        let tiff = TIFFBuilder.camera(exif: Self.original).build()
        let jpeg = JPEGBuilder.jpeg([JPEGBuilder.exifSegment(tiff)])
        #expect(try ExifReader.exifBlock(in: jpeg) == tiff)
    }

    @Test func findsTheExifBlockOfAJPEGWhoseScanIsCutShort() throws {
        let tiff = TIFFBuilder.camera(exif: Self.original).build()
        let jpeg = JPEGBuilder.jpeg([JPEGBuilder.exifSegment(tiff)]).dropLast(4)
        #expect(try ExifReader.exifBlock(in: Data(jpeg)) == tiff)
    }

    @Test func findsTheExifBlockOfAPNG() throws {
        let tiff = TIFFBuilder.camera(exif: Self.original).build()
        let png = PNGBuilder.png([PNGBuilder.chunk("eXIf", [UInt8](tiff))])
        #expect(try ExifReader.exifBlock(in: png) == tiff)
    }

    @Test func returnsNoExifBlockForFilesWithout() throws {
        #expect(try ExifReader.exifBlock(in: JPEGBuilder.jpeg()) == nil)
        #expect(try ExifReader.exifBlock(in: PNGBuilder.png()) == nil)
    }

    @Test func refusesToLookForExifInFilesItCannotRead() {
        #expect(throws: MetadataError.notAnImage) { try ExifReader.exifBlock(in: Data()) }
        #expect(throws: MetadataError.unsupportedContainer(.webp)) {
            try ExifReader.exifBlock(in: Data("RIFF\0\0\0\0WEBPVP8 ".utf8))
        }
    }

    // MARK: against exiftool-made files

    @Test(.enabled(if: ExiftoolProbe.isAvailable, "exiftool is not installed (Debian libimage-exiftool-perl)"))
    func readsWhatExiftoolWroteIntoACameraJPEGAndPNG() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for url in [try CameraFixtures.cameraJPEG(in: scratch), try CameraFixtures.cameraPNG(in: scratch)] {
            let block = try #require(try ExifReader.exifBlock(in: Data(contentsOf: url)))
            let summary = try ExifReader.read(block)
            #expect(summary.orientation == CameraFixtures.orientation)
            #expect(summary.captureDate == CaptureDate(localDateTime: "2024-05-06T07:08:09", utcOffsetSeconds: 7200))
            #expect(summary.hasGPS && summary.hasMakerNotes && summary.hasThumbnail)
        }
    }
}
