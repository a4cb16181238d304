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

    /// `skipTables: false` decodes every scan code by code (`JPEGScanDecoder.decode`): tests compare the two.
    static func items(_ view: ByteView, skipTables: Bool = true) throws -> [MetadataItem] {
        var items: [MetadataItem] = []
        var structure = CodingStructure(skipTables: skipTables)
        let end = try JPEGWalker.walk(
            view,
            scan: { segment in
                structure.scan(segment, in: view, into: &items)
            },
            stray: { offset, count in
                items.append(MetadataItem(kind: .strayBytes, location: "between segments", byteCount: count))
            },
            standalone: { marker in
                let name = marker == 0x01 ? "TEM" : "RST\(Int(marker) - 0xD0)"
                if marker == 0x01 {
                    items.append(MetadataItem(kind: .unknownSegment, location: name, byteCount: 0))
                } else {
                    items.append(MetadataItem(kind: .restartMarkers, location: name + " outside a scan", byteCount: 2))
                }
            },
            visit: { segment in
                classify(segment, into: &items)
                structure.read(segment, into: &items)
                return true
            })
        structure.addUnusedTables(into: &items)
        if let end, end < view.count {
            items.append(MetadataItem(kind: .trailingData, location: "after EOI", byteCount: view.count - end))
        }
        return items
    }

    /// The image-coding segments as the scans need them: tables, frame, restart interval; and what is in them
    /// that no frame or scan uses.
    struct CodingStructure {
        enum FrameCoding { case huffmanSequential, progressive, lossless, hierarchical, arithmetic }
        /// Whether scans are decoded with `JPEGScanDecoder`'s skip tables.
        let skipTables: Bool
        var frame: JPEGScanDecoder.Frame?
        var coding = FrameCoding.huffmanSequential
        var twelveBit = false
        var restartInterval = 0
        /// Huffman tables by class (0 DC, 1 AC) * 4 + id; a table whose counts are invalid is stored as nil.
        var huffman: [Int: JPEGScanDecoder.HuffmanTable?] = [:]
        /// Bytes each defined table took, and whether a frame or scan used it: DQT by id, DHT by class * 4 + id.
        var quantisationBytes: [Int: Int] = [:], usedQuantisation: Set<Int> = []
        var huffmanBytes: [Int: Int] = [:], usedHuffman: Set<Int> = []

        mutating func read(_ segment: JPEGWalker.Segment, into items: inout [MetadataItem]) {
            let p = segment.payload
            func stray(_ name: String, _ count: Int) {
                items.append(MetadataItem(kind: .strayBytes, location: name, byteCount: count))
            }
            switch segment.marker {
            case 0xE0 where p.hasBytes(ascii("JFIF\0"), at: 0) && p.count > 14:
                let thumbnail = (p.u8(12) ?? 0) > 0 && (p.u8(13) ?? 0) > 0
                stray(thumbnail ? "APP0 JFIF thumbnail" : "APP0 JFIF past its header", p.count - 14)
            case 0xDB:
                var i = 0
                while let pt = p.u8(i) {
                    let size = pt >> 4 == 0 ? 64 : 128
                    guard pt >> 4 <= 1, pt & 15 <= 3, p.contains(i + 1, length: size) else { break }
                    quantisationBytes[Int(pt & 15), default: 0] += 1 + size
                    i += 1 + size
                }
                if i < p.count { stray("DQT past its tables", p.count - i) }
            case 0xC4:
                var i = 0
                while let tc = p.u8(i) {
                    guard tc >> 4 <= 1, tc & 15 <= 3, p.contains(i + 1, length: 16) else { break }
                    let counts = (0..<16).map { Int(p.u8(i + 1 + $0) ?? 0) }
                    let total = counts.reduce(0, +)
                    guard total <= 256, let values = p.slice(i + 17, length: total) else { break }
                    let key = Int(tc >> 4) * 4 + Int(tc & 15)
                    huffman[key] = JPEGScanDecoder.HuffmanTable(counts: counts, values: Array(values.raw))
                    huffmanBytes[key, default: 0] += 17 + total
                    i += 17 + total
                }
                if i < p.count { stray("DHT past its tables", p.count - i) }
            case 0xDD:
                restartInterval = p.u16(0) ?? 0
                if p.count > 2 { stray("DRI past its interval", p.count - 2) }
            case 0xC0...0xCF where segment.marker != 0xC4 && segment.marker != 0xC8 && segment.marker != 0xCC:
                guard frame == nil else {
                    items.append(MetadataItem(kind: .unknownSegment, location: "a second frame header", byteCount: p.count))
                    return
                }
                switch segment.marker {
                case 0xC0, 0xC1: coding = .huffmanSequential
                case 0xC2: coding = .progressive
                case 0xC3: coding = .lossless
                case 0xC5...0xC7: coding = .hierarchical
                default: coding = .arithmetic
                }
                twelveBit = p.u8(0) == 12
                let count = Int(p.u8(5) ?? 0)
                var components: [JPEGScanDecoder.Component] = []
                for c in 0..<count {
                    guard let id = p.u8(6 + 3 * c), let hv = p.u8(7 + 3 * c), let tq = p.u8(8 + 3 * c) else { break }
                    components.append(.init(id: id, h: max(1, Int(hv >> 4)), v: max(1, Int(hv & 15))))
                    usedQuantisation.insert(Int(tq & 15))
                }
                frame = JPEGScanDecoder.Frame(width: p.u16(3) ?? 0, height: p.u16(1) ?? 0, components: components)
                if p.count > 6 + 3 * count { stray("frame header past its components", p.count - 6 - 3 * count) }
            case 0xDA, 0xC4, 0xCC, 0xFE, 0xE0...0xEF:
                break  // scans are read by `scan`; DAC belongs to arithmetic coding; APPn and COM are classified
            case 0xC8, 0xF0...0xFD:
                items.append(
                    MetadataItem(kind: .unknownSegment, location: "JPG\(segment.marker == 0xC8 ? 0 : Int(segment.marker) - 0xF0)", byteCount: p.count)
                )
            case 0xDC:
                items.append(MetadataItem(kind: .unknownSegment, location: "DNL", byteCount: p.count))
            case 0xDE:
                items.append(MetadataItem(kind: .unknownSegment, location: "DHP", byteCount: p.count))
            case 0xDF:
                items.append(MetadataItem(kind: .unknownSegment, location: "EXP", byteCount: p.count))
            default:
                items.append(
                    MetadataItem(
                        kind: .unknownSegment,
                        location: "marker 0x" + String(segment.marker, radix: 16, uppercase: true),
                        byteCount: p.count))
            }
        }

        /// Reads a scan header and its entropy-coded data; returns where the data ends.
        mutating func scan(_ segment: JPEGWalker.Segment, in view: ByteView, into items: inout [MetadataItem]) -> Int {
            let p = segment.payload
            let count = Int(p.u8(0) ?? 0)
            func undecoded(_ why: String) -> Int {
                items.append(MetadataItem(kind: .undecodedScan, location: "scan: " + why, byteCount: 0))
                return (try? JPEGWalker.endOfScan(view, from: segment.end)) ?? view.count
            }
            if p.count > 4 + 2 * count {
                items.append(
                    MetadataItem(
                        kind: .strayBytes, location: "scan header past its components",
                        byteCount: p.count - 4 - 2 * count))
            }
            var components: [JPEGScanDecoder.ScanComponent] = []
            var tablesFound = true
            for c in 0..<count {
                guard let id = p.u8(1 + 2 * c), let tables = p.u8(2 + 2 * c) else { return undecoded("header cut short") }
                let dcKey = Int(tables >> 4)
                let acKey = 4 + Int(tables & 15)
                usedHuffman.formUnion([dcKey, acKey])
                guard let component = frame?.components.first(where: { $0.id == id }),
                    let dcEntry = huffman[dcKey], let dc = dcEntry, let acEntry = huffman[acKey], let ac = acEntry
                else {
                    tablesFound = false
                    continue
                }
                components.append(.init(h: component.h, v: component.v, dc: dc, ac: ac))
            }
            guard let frame else { return undecoded("no frame header before it") }
            switch coding {
            case .huffmanSequential: break
            case .progressive: return undecoded("progressive, not decoded")
            case .lossless: return undecoded("lossless, not decoded")
            case .hierarchical: return undecoded("hierarchical, not decoded")
            case .arithmetic: return undecoded("arithmetic-coded, not decoded")
            }
            guard tablesFound, !components.isEmpty else { return undecoded("a component or Huffman table is missing") }
            guard frame.height > 0, frame.width > 0 else { return undecoded("the frame's size is not in its header") }
            guard p.u8(1 + 2 * count) == 0, p.u8(2 + 2 * count) == 63, p.u8(3 + 2 * count) == 0 else {
                return undecoded("not a sequential scan")
            }
            let outcome = JPEGScanDecoder.decode(
                view.raw, from: segment.end, frame: frame, scan: components,
                restartInterval: restartInterval, twelveBit: twelveBit,
                skipTables: skipTables)
            if let why = outcome.undecodable {
                items.append(MetadataItem(kind: .undecodedScan, location: "scan: " + why, byteCount: 0))
            }
            if outcome.paddingBytes > 0 {
                items.append(
                    MetadataItem(
                        kind: .scanPadding, location: "scan data no block uses",
                        byteCount: outcome.paddingBytes))
            }
            if outcome.restartProblems > 0 {
                items.append(
                    MetadataItem(
                        kind: .restartMarkers, location: "restart markers that do not match the interval",
                        byteCount: 2 * outcome.restartProblems))
            }
            return outcome.end
        }

        /// Tables that no frame or scan used: they can hold any bytes.
        func addUnusedTables(into items: inout [MetadataItem]) {
            let dqt = quantisationBytes.filter { !usedQuantisation.contains($0.key) }.values.reduce(0, +)
            if dqt > 0 { items.append(MetadataItem(kind: .strayBytes, location: "DQT table no frame uses", byteCount: dqt)) }
            let dht = huffmanBytes.filter { !usedHuffman.contains($0.key) }.values.reduce(0, +)
            if dht > 0 { items.append(MetadataItem(kind: .strayBytes, location: "DHT table no scan uses", byteCount: dht)) }
        }
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
            break  // SOFn, DHT, DQT, DRI, SOS, DNL, ...: image structure, not metadata
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
                let id = payload.u16(position + 4), let nameLength = payload.u8(position + 6)
            else {
                other += payload.count - position
                break
            }
            var namePart = 1 + Int(nameLength)
            if namePart % 2 == 1 { namePart += 1 }
            let sizeOffset = position + 6 + namePart
            guard let size = payload.u32(sizeOffset) else {
                other += payload.count - position
                break
            }
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
            add(.otherApplication)  // an unknown or private chunk could carry anything
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
