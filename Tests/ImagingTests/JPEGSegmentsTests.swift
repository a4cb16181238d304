import Foundation
import Testing

@testable import Imaging

private let jfif: [UInt8] = [0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]
private let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x04, 0x01, 0x00, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]

@Test func segmentWalkAcceptsJFIFAndCodingSegmentsOnly() {
    let clean = Data([0xFF, 0xD8] + jfif + scan + [0xFF, 0xD9])
    #expect(JPEGSegments.firstNonCodingSegment(in: clean) == nil)
}

@Test func segmentWalkNamesWhatItFound() {
    let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x08] + Array("Exif".utf8) + [0, 0]
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfif + exif + scan + [0xFF, 0xD9]))
            == "an APP1 segment")
    let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x04, 0x68, 0x69]
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + comment + scan + [0xFF, 0xD9]))
            == "a comment segment")
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfif + scan + [0xFF, 0xD9, 0x00]))
            == "data after the end-of-image marker")
    #expect(JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfif + scan)) == "no end-of-image marker")
    #expect(JPEGSegments.firstNonCodingSegment(in: Data()) == "no start-of-image marker")
    #expect(JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x40])) == "a segment cut short")
}

@Test func iccCheckRecognisesOnlySRGBProfiles() {
    func profile(description: [UInt8], space: String = "RGB ") -> Data {
        var p = [UInt8](repeating: 0, count: 128)
        p.replaceSubrange(16..<20, with: Array(space.utf8))
        p += [0, 0, 0, 1] + Array("desc".utf8) + [0, 0, 0, 144] + [0, 0, 0, UInt8(description.count)]
        return Data(p + description)
    }
    #expect(JPEGSegments.isSRGBProfile(profile(description: Array("desc....sRGB IEC61966-2.1".utf8))))
    #expect(JPEGSegments.isSRGBProfile(profile(description: Array("mluc".utf8) + [0, 0x73, 0, 0x52, 0, 0x47, 0, 0x42])))
    #expect(!JPEGSegments.isSRGBProfile(profile(description: Array("desc....Display P3".utf8))))
    #expect(!JPEGSegments.isSRGBProfile(profile(description: Array("desc....sRGB".utf8), space: "CMYK")))
    #expect(!JPEGSegments.isSRGBProfile(Data([1, 2, 3])))
}

@Test func segmentWalkRefusesADNLSegmentAndAnyMarkerLibjpegDoesNotWrite() {
    let dnl: [UInt8] = [0xFF, 0xDC, 0x00, 0x04, 0x00, 0x10]
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfif + scan + dnl + [0xFF, 0xD9]))
            == "a segment with marker 0xDC")
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfif + dnl + scan + [0xFF, 0xD9]))
            == "a segment with marker 0xDC")
    let jfifWithThumbnail: [UInt8] = [
        0xFF, 0xE0, 0x00, 0x13, 0x4A, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 1, 1,
        0x10, 0x20, 0x30,
    ]
    #expect(
        JPEGSegments.firstNonCodingSegment(in: Data([0xFF, 0xD8] + jfifWithThumbnail + scan + [0xFF, 0xD9]))
            == "an APP0 segment that is not a bare JFIF header")
}
