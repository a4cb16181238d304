import Foundation

/// Lists the metadata of a JPEG, segment by segment.
enum JPEGInspector {
    static let xmpSignature = ascii("http://ns.adobe.com/xap/1.0/\0")
    static let extendedXMPSignature = ascii("http://ns.adobe.com/xmp/extension/\0")
    static let photoshopSignature = ascii("Photoshop 3.0\0")
    /// Signatures of other APPn blocks named in the item's location (format names, never content).
    static let knownApplicationSignatures: [(marker: UInt8, signature: [UInt8], name: String)] = [
        (0xE2, ascii("MPF\0"), "MPF"),
        (0xE2, ascii("FPXR\0"), "FPXR"),
        (0xEC, ascii("Ducky"), "Ducky"),
        (0xED, ascii("Adobe_CM"), "Adobe_CM"),
        (0xEB, ascii("JP"), "JPEG XT/JUMBF"),
    ]

    static func items(_ view: ByteView) throws -> [MetadataItem] {
        var items: [MetadataItem] = []
        let end = try JPEGWalker.walk(view) { segment in
            classify(segment, into: &items)
            return true
        }
        if let end, end < view.count {
            items.append(MetadataItem(kind: .trailingData, location: "after EOI", byteCount: view.count - end))
        }
        return items
    }

    static func classify(_ segment: JPEGWalker.Segment, into items: inout [MetadataItem]) {
        let payload = segment.payload
        let size = payload.count
        let marker = segment.marker
        func add(_ kind: MetadataKind, _ location: String, _ bytes: Int = size) {
            items.append(MetadataItem(kind: kind, location: location, byteCount: bytes))
        }
        switch marker {
        case 0xFE:
            add(.comment, "COM")
        case 0xE0 where payload.hasBytes(ascii("JFIF\0"), at: 0):
            add(.jfif, "APP0 JFIF")
        case 0xE0 where payload.hasBytes(ascii("JFXX\0"), at: 0):
            add(.jfxx, "APP0 JFXX")
        case 0xE1 where payload.hasBytes(exifPrefix, at: 0) || payload.hasBytes(ascii("Exif\0"), at: 0):
            add(.exif, "APP1 Exif")
            if let tiff = payload.slice(6, length: size - 6) {
                addExifParts(tiff, location: "APP1 Exif", into: &items)
            }
        case 0xE1 where payload.hasBytes(xmpSignature, at: 0):
            add(.xmp, "APP1 XMP")
        case 0xE1 where payload.hasBytes(extendedXMPSignature, at: 0):
            add(.xmp, "APP1 extended XMP")
        case 0xE2 where payload.hasBytes(ascii("ICC_PROFILE\0"), at: 0):
            add(.icc, "APP2 ICC_PROFILE")
        case 0xED where payload.hasBytes(photoshopSignature, at: 0):
            let (iptcBytes, otherBytes) = photoshopResources(payload, from: photoshopSignature.count)
            if let iptcBytes { add(.iptc, "APP13 Photoshop IPTC", iptcBytes) }
            if let otherBytes { add(.photoshop, "APP13 Photoshop", otherBytes) }
        case 0xEE where payload.hasBytes(ascii("Adobe"), at: 0):
            add(.adobe, "APP14 Adobe")
        case 0xE0...0xEF:
            let name = knownApplicationSignatures.first { $0.marker == marker && payload.hasBytes($0.signature, at: 0) }
            let location = "APP\(Int(marker) - 0xE0)" + (name.map { " " + $0.name } ?? "")
            add(.otherApplication, location)
        default:
            break // SOFn, DHT, DQT, DRI, SOS, DNL, ...: image structure, not metadata
        }
    }

    /// Splits a Photoshop APP13 block's image resources into IPTC (resource 0x0404) and everything else.
    /// Returns nil for a part that is absent. Bytes that cannot be parsed count as "everything else".
    static func photoshopResources(_ payload: ByteView, from start: Int) -> (iptc: Int?, other: Int?) {
        var iptc: Int?
        var other = 0
        var position = start
        let signatures = [ascii("8BIM"), ascii("PHUT"), ascii("DCSR"), ascii("AgHg"), ascii("MeSa")]
        while position < payload.count {
            guard signatures.contains(where: { payload.hasBytes($0, at: position) }),
                  let id = payload.u16(position + 4), let nameLength = payload.u8(position + 6) else {
                other += payload.count - position
                break
            }
            var namePart = 1 + Int(nameLength)
            if namePart % 2 == 1 { namePart += 1 }
            let sizeOffset = position + 6 + namePart
            guard let size = payload.u32(sizeOffset) else { other += payload.count - position; break }
            let dataLength = size + (size % 2)
            let next = sizeOffset + 4 + dataLength
            let total = min(next, payload.count) - position
            if id == 0x0404 { iptc = (iptc ?? 0) + size } else { other += total }
            position = next
        }
        if iptc == nil && other == 0 { other = payload.count }
        return (iptc, other > 0 ? other : nil)
    }

    /// Adds the GPS IFD, MakerNote and IFD1 thumbnail of an EXIF block as items of their own.
    static func addExifParts(_ tiff: ByteView, location: String, into items: inout [MetadataItem]) {
        guard let structure = try? TIFFStructure.parse(tiff) else { return }
        if let bytes = structure.gpsBytes {
            items.append(MetadataItem(kind: .gps, location: location + " GPS IFD", byteCount: bytes))
        }
        if let bytes = structure.makerNoteBytes {
            items.append(MetadataItem(kind: .makerNotes, location: location + " MakerNote", byteCount: bytes))
        }
        if let bytes = structure.thumbnailBytes {
            items.append(MetadataItem(kind: .exifThumbnail, location: location + " IFD1 thumbnail", byteCount: bytes))
        }
    }
}

/// Lists the metadata of a PNG, chunk by chunk.
enum PNGInspector {
    /// Chunks that only describe how to draw the pixels: not metadata, not listed.
    static let imageChunks: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "sBIT", "bKGD", "hIST", "pHYs", "sPLT",
        "cICP", "mDCv", "cLLi", "acTL", "fcTL", "fdAT",
    ]

    static func items(_ view: ByteView) throws -> [MetadataItem] {
        var items: [MetadataItem] = []
        let end = try PNGWalker.walk(view) { chunk in
            classify(chunk, into: &items)
            return true
        }
        if let end, end < view.count {
            items.append(MetadataItem(kind: .trailingData, location: "after IEND", byteCount: view.count - end))
        }
        return items
    }

    static func classify(_ chunk: PNGWalker.Chunk, into items: inout [MetadataItem]) {
        let location = "PNG chunk " + chunk.type
        func add(_ kind: MetadataKind) {
            items.append(MetadataItem(kind: kind, location: location, byteCount: chunk.data.count))
        }
        switch chunk.type {
        case "tEXt", "zTXt", "iTXt":
            add(textKind(keyword: chunk.data.nulTerminated(from: 0, limit: 80) ?? []))
        case "eXIf":
            add(.exif)
            JPEGInspector.addExifParts(chunk.data.droppingExifPrefix(), location: location, into: &items)
        case "tIME":
            add(.timestamp)
        case "iCCP":
            add(.icc)
        case let type where imageChunks.contains(type):
            break
        default:
            add(.otherApplication) // an unknown or private chunk could carry anything
        }
    }

    /// The kind a text chunk holds, by its keyword: XMP, ImageMagick-style "Raw profile type ..." blocks, or text.
    static func textKind(keyword: [UInt8]) -> MetadataKind {
        let name = String(decoding: keyword, as: UTF8.self)
        if name == "XML:com.adobe.xmp" { return .xmp }
        let rawProfile = "raw profile type "
        let lower = name.lowercased()
        guard lower.hasPrefix(rawProfile) else { return .text }
        switch lower.dropFirst(rawProfile.count) {
        case "exif", "app1": return .exif
        case "xmp": return .xmp
        case "iptc": return .iptc
        case "icc", "icm": return .icc
        case "8bim": return .photoshop
        default: return .text
        }
    }
}
