internal import CTurboJPEG
import CairnCore
import Foundation
internal import JPEGShim

/// The fast re-encode for YCbCr and grey JPEG sources, through libjpeg-turbo's TurboJPEG API (2.1): decode to
/// Y/Cb/Cr planes (no colour conversion, no chroma upsampling), turn each plane on its own when the EXIF
/// orientation (2-8) asks for it (`cairn_orient_plane`, cache-blocked), encode the planes again with libjpeg's
/// own quantisation tables at the pipeline's quality. Nothing of the source's coding survives: not its
/// markers, not its entropy-coded bytes (padding, restart oddities), not its quantisation tables (which can
/// name the camera or the editing software). A 90-degree turn swaps the subsampling
/// (4:2:2 becomes 4:4:0 and back; 4:2:0, 4:4:4 and grey stay). The output carries a JFIF header and nothing else.
///
/// With odd sizes the chroma planes are turned as pictures of their own (ceil(w/2) samples wide), so a flip
/// across a subsampled axis moves chroma by half a chroma sample at most; even sizes (every camera) are exact.
enum PlanarJPEG {
    /// The header facts the path depends on.
    struct Header {
        let width: Int
        let height: Int
        let subsampling: TJSAMP
        /// True for YCbCr or greyscale JPEGs, the colour spaces this path keeps (CMYK/YCCK/RGB go to libvips).
        let yccOrGrey: Bool
        /// The subsampling by name.
        var sampling: Sampling? { Sampling(subsampling) }
    }

    /// libjpeg-turbo flags for every decode: stop on a warning (data cut short, a bad marker) so the caller
    /// falls back, and refuse scan bombs. The accurate DCT is kept: TJFLAG_FASTDCT saved about 5 ms of a 60 ms
    /// 12 MP decode but raised the mean error against the source by 13% (1.53 -> 1.73 levels), and made no
    /// difference at all to tjCompressFromYUVPlanes' output (byte-identical files).
    static let decodeFlags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
    /// Flags for the full-size encode: baseline. (TurboJPEG 2.1 then takes libjpeg's fast integer forward DCT
    /// below quality 96, its setCompDefaults; the turn in bands sets the encoder up the same way.)
    static let encodeFlags: Int32 = 0

    static func header(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), let handle = tjInitDecompress() else {
            return nil
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = -1
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0,
            width > 0, height > 0, (0..<Int32(TJ_NUMSAMP)).contains(subsampling)
        else {
            return nil
        }
        let ycc = colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue)
        return Header(width: Int(width), height: Int(height), subsampling: TJSAMP(UInt32(subsampling)), yccOrGrey: ycc)
    }

    /// The subsampling of the planes after turning by `orientation`; nil when TurboJPEG 2.1 cannot encode it
    /// (4:1:1 turned by 90 degrees would be 1x4).
    static func subsampling(_ source: TJSAMP, turnedBy orientation: Int) -> TJSAMP? {
        guard orientation >= 5 else { return source }
        switch source {
        case TJSAMP_422: return TJSAMP_440
        case TJSAMP_440: return TJSAMP_422
        case TJSAMP_411: return nil
        default: return source
        }
    }

    /// The bytes of the decoded planes this path holds for `header` (all of them at once, before the encode).
    static func planeBytes(_ header: Header) -> Int {
        let components = header.subsampling == TJSAMP_GRAY ? 1 : 3
        return (0..<components).reduce(0) { total, i in
            let ss = Int32(header.subsampling.rawValue)
            return total + Int(tjPlaneWidth(Int32(i), Int32(header.width), ss)) * Int(tjPlaneHeight(Int32(i), Int32(header.height), ss))
        }
    }

    /// Whether this path can take the JPEG: YCbCr or grey, a subsampling it can turn.
    static func canTurn(_ header: Header, orientation: Int) -> Bool {
        header.yccOrGrey && subsampling(header.subsampling, turnedBy: orientation) != nil
    }

    /// Decodes, turns and encodes at `quality`. Returns nil with libjpeg-turbo's reason on any error or warning.
    static func upright(_ bytes: UnsafeRawBufferPointer, orientation: Int, quality: Int)
        -> (jpeg: Data?, width: Int, height: Int, failure: String?)
    {
        guard let header = header(bytes), canTurn(header, orientation: orientation),
            let outSubsampling = subsampling(header.subsampling, turnedBy: orientation),
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else {
            return (nil, 0, 0, "not a YCbCr/grey JPEG TurboJPEG can turn")
        }
        let w = header.width
        let h = header.height
        let sourceSS = Int32(header.subsampling.rawValue)
        let swapped = orientation >= 5
        let ow = swapped ? h : w
        let oh = swapped ? w : h
        let outSS = Int32(outSubsampling.rawValue)
        let components = header.subsampling == TJSAMP_GRAY ? 1 : 3

        // 1. Decode to planes.
        var source: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
        var sourceStrides: [Int32] = [0, 0, 0]
        defer { for plane in source { plane?.deallocate() } }
        for i in 0..<components {
            let pw = tjPlaneWidth(Int32(i), Int32(w), sourceSS)
            let ph = tjPlaneHeight(Int32(i), Int32(h), sourceSS)
            guard pw > 0, ph > 0 else { return (nil, 0, 0, "bad plane size") }
            source[i] = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(pw) * Int(ph))
            sourceStrides[i] = pw
        }
        guard let decoder = tjInitDecompress() else { return (nil, 0, 0, "TurboJPEG could not start") }
        let decoded = source.withUnsafeMutableBufferPointer { planes in
            tjDecompressToYUVPlanes(
                decoder, base, UInt(bytes.count), planes.baseAddress, Int32(w),
                &sourceStrides, Int32(h), decodeFlags)
        }
        if decoded != 0 {
            let reason = String(cString: tjGetErrorStr2(decoder))
            tjDestroy(decoder)
            return (nil, 0, 0, reason)
        }
        tjDestroy(decoder)

        // 2. Turn each plane; free its source at once (peak memory: one source plane set plus the turned one).
        var turned: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
        var turnedStrides: [Int32] = [0, 0, 0]
        defer { for plane in turned { plane?.deallocate() } }
        if orientation == 1 {
            // Upright already: the decoded planes are encoded as they are (the re-encode is what rebuilds the file).
            swap(&turned, &source)
            turnedStrides = sourceStrides
        }
        for i in 0..<components where orientation != 1 {
            // The samples that hold picture: the luma plane's padding column/row is not turned, it is rebuilt.
            let sw = i == 0 ? Int32(w) : tjPlaneWidth(Int32(i), Int32(w), sourceSS)
            let sh = i == 0 ? Int32(h) : tjPlaneHeight(Int32(i), Int32(h), sourceSS)
            let pw = tjPlaneWidth(Int32(i), Int32(ow), outSS)
            let ph = tjPlaneHeight(Int32(i), Int32(oh), outSS)
            guard pw > 0, ph > 0 else { return (nil, 0, 0, "bad plane size") }
            let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(pw) * Int(ph))
            turned[i] = plane
            turnedStrides[i] = pw
            guard cairn_orient_plane(source[i], sw, sh, sourceStrides[i], 1, Int32(orientation), plane, pw, pw, ph) == 0
            else { return (nil, 0, 0, "plane sizes do not match after turning") }
            source[i]?.deallocate()
            source[i] = nil
        }

        // 3. Encode the turned planes.
        guard let encoder = tjInitCompress() else { return (nil, 0, 0, "TurboJPEG could not start") }
        defer { tjDestroy(encoder) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        var planes: [UnsafePointer<UInt8>?] = turned.map { $0.map { UnsafePointer($0) } }
        let encoded = tjCompressFromYUVPlanes(
            encoder, &planes, Int32(ow), &turnedStrides, Int32(oh), outSS,
            &output, &outputSize, Int32(quality), encodeFlags)
        guard encoded == 0, let output, outputSize > 0 else {
            return (nil, 0, 0, String(cString: tjGetErrorStr2(encoder)))
        }
        return (Data(bytes: output, count: Int(outputSize)), ow, oh, nil)
    }

    /// `upright`'s JPEG (the same pixels: the same planes, turns and encoder settings) made holding about
    /// `bandBytes` of decoded samples at most, for a photo whose planes are too large to hold whole: the output is
    /// made band by band, each band decoded again from the source keeping only what it needs (libjpeg's own API:
    /// `cairn_jpeg_turn_in_bands`). Each band costs another pass over the source's entropy-coded data. Returns
    /// nil with libjpeg's reason on any error or warning; `bands` is how many passes it took.
    static func uprightInBands(_ bytes: UnsafeRawBufferPointer, orientation: Int, quality: Int, bandBytes: Int)
        -> (jpeg: Data?, width: Int, height: Int, bands: Int, failure: String?)
    {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
            return (nil, 0, 0, 0, "no bytes")
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize = 0
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        var reason = [CChar](repeating: 0, count: 256)
        let rc = cairn_jpeg_turn_in_bands(
            base, bytes.count, Int32(orientation), Int32(min(max(quality, 1), 100)),
            max(bandBytes, 1), &output, &outputSize, &width, &height, &bands,
            &reason, reason.count)
        guard rc == 0, let output, outputSize > 0 else {
            if let output { free(output) }
            return (nil, 0, 0, 0, String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        // The encoder's own buffer becomes the Data (no copy of a photo-sized block).
        let jpeg = Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
        return (jpeg, Int(width), Int(height), Int(bands), nil)
    }

    /// `upright`'s JPEG for an upright photo (orientation 1: the same file, byte for byte), made one MCU row at a time
    /// through libjpeg's raw-data API (`cairn_jpeg_rebuild_upright`), so no plane of the photo is held whole (a 12 MP
    /// photo's 18 MB of planes were a third of a `skin log`'s page faults). With `half`, also an RGB copy at half size
    /// from the same decode, when libjpeg's own decode at half size needs no upsampling (4:2:0, 4:4:4): libjpeg's
    /// half-size decode but for its luma, the mean of each 2 x 2 of decoded samples instead of a 4x4 reduced
    /// inverse DCT (see `HalfImage`). Returns nil with libjpeg's reason on any error or warning.
    static func rebuiltUpright(_ bytes: UnsafeRawBufferPointer, quality: Int, half: Bool)
        -> (jpeg: Data?, width: Int, height: Int, half: HalfImage?, failure: String?)
    {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
            return (nil, 0, 0, nil, "no bytes")
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var halfPixels: UnsafeMutablePointer<UInt8>? = nil
        var outputSize = 0
        var width: Int32 = 0
        var height: Int32 = 0
        var halfWidth: Int32 = 0
        var halfHeight: Int32 = 0
        var reason = [CChar](repeating: 0, count: 256)
        let rc = cairn_jpeg_rebuild_upright(
            base, bytes.count, Int32(min(max(quality, 1), 100)), half ? 1 : 0, &output,
            &outputSize, &width, &height, &halfPixels, &halfWidth, &halfHeight,
            &reason, reason.count)
        guard rc == 0, let output, outputSize > 0 else {
            if let output { free(output) }
            return (nil, 0, 0, nil, String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        // The encoder's own buffer becomes the Data (no copy of a photo-sized block).
        let jpeg = Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
        let copy = halfPixels.map { HalfImage(pixels: $0, width: Int(halfWidth), height: Int(halfHeight)) }
        return (jpeg, Int(width), Int(height), copy, nil)
    }

    /// A half-size RGB copy `rebuiltUpright` made (3 bytes a pixel, rows packed), freed with it.
    final class HalfImage {
        let pixels: UnsafeMutablePointer<UInt8>
        let width: Int
        let height: Int

        init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
            self.pixels = pixels
            self.width = width
            self.height = height
        }

        deinit { free(pixels) }
    }

    /// The scale (num/denom, at most 1) libjpeg decodes at so the longer side is as small as it can be while
    /// still at least `side`; 1/1 when the picture is smaller than that already.
    static func scale(forLongerSide longer: Int, atLeast side: Int) -> (num: Int, denom: Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return (1, 1) }
        var best = (num: 1, denom: 1)
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) {
            let num = Int(factor.num)
            let denom = Int(factor.denom)
            guard num > 0, denom > 0, num <= denom else { continue }
            let scaled = (longer * num + denom - 1) / denom
            if scaled >= side, num * best.denom < best.num * denom { best = (num, denom) }
        }
        return best
    }

    /// The picture decoded at a libjpeg scale whose longer side is still at least `side`, as RGB, turned
    /// upright. Nil with libjpeg-turbo's reason on any error or warning.
    static func uprightRGB(_ bytes: UnsafeRawBufferPointer, orientation: Int, atLeast side: Int)
        -> (image: RGBImage?, failure: String?)
    {
        guard let header = header(bytes), header.yccOrGrey,
            let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else {
            return (nil, "not a YCbCr/grey JPEG")
        }
        let (num, denom) = scale(forLongerSide: max(header.width, header.height), atLeast: side)
        let sw = (header.width * num + denom - 1) / denom
        let sh = (header.height * num + denom - 1) / denom
        guard let decoder = tjInitDecompress() else { return (nil, "TurboJPEG could not start") }
        defer { tjDestroy(decoder) }
        var stored = [UInt8](repeating: 0, count: sw * sh * 3)
        let decoded = stored.withUnsafeMutableBufferPointer { pixels in
            tjDecompress2(
                decoder, base, UInt(bytes.count), pixels.baseAddress, Int32(sw), 0, Int32(sh),
                Int32(TJPF_RGB.rawValue), decodeFlags)
        }
        guard decoded == 0 else { return (nil, String(cString: tjGetErrorStr2(decoder))) }
        if orientation == 1 { return (RGBImage(width: sw, height: sh, pixels: stored), nil) }
        let ow = orientation >= 5 ? sh : sw
        let oh = orientation >= 5 ? sw : sh
        var upright = [UInt8](repeating: 0, count: sw * sh * 3)
        let rc = stored.withUnsafeBufferPointer { src in
            upright.withUnsafeMutableBufferPointer { dst in
                cairn_orient_plane(
                    src.baseAddress, Int32(sw), Int32(sh), Int32(sw * 3), 3, Int32(orientation),
                    dst.baseAddress, Int32(ow * 3), Int32(ow), Int32(oh))
            }
        }
        guard rc == 0 else { return (nil, "could not turn the thumbnail") }
        return (RGBImage(width: ow, height: oh, pixels: upright), nil)
    }
}

extension PlanarJPEG {
    /// The chroma subsamplings TurboJPEG 2.1 knows, by name (so callers need no C import).
    enum Sampling: String, Sendable, CaseIterable {
        case s444 = "4:4:4"
        case s422 = "4:2:2"
        case s420 = "4:2:0"
        case grey
        case s440 = "4:4:0"
        case s411 = "4:1:1"

        init?(_ value: TJSAMP) {
            switch value {
            case TJSAMP_444: self = .s444
            case TJSAMP_422: self = .s422
            case TJSAMP_420: self = .s420
            case TJSAMP_GRAY: self = .grey
            case TJSAMP_440: self = .s440
            case TJSAMP_411: self = .s411
            default: return nil
            }
        }

        var turbo: TJSAMP {
            switch self {
            case .s444: return TJSAMP_444
            case .s422: return TJSAMP_422
            case .s420: return TJSAMP_420
            case .grey: return TJSAMP_GRAY
            case .s440: return TJSAMP_440
            case .s411: return TJSAMP_411
            }
        }
    }

    /// The subsampling of a JPEG's header, nil when unreadable or not one TurboJPEG names.
    static func sampling(of jpeg: Data) -> Sampling? {
        jpeg.withUnsafeBytes { header($0) }.flatMap { Sampling($0.subsampling) }
    }

    /// Encodes RGB pixels with TurboJPEG at a chosen subsampling (grey keeps luma only): a JFIF file with no
    /// other metadata. Nil with libjpeg-turbo's reason on failure. (Test material for every subsampling a camera
    /// may write; libvips 8.14 only writes 4:2:0 and 4:4:4.)
    static func compress(_ image: RGBImage, sampling: Sampling, quality: Int) -> (jpeg: Data?, failure: String?) {
        guard let encoder = tjInitCompress() else { return (nil, "TurboJPEG could not start") }
        defer { tjDestroy(encoder) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        let rc = image.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(
                encoder, pixels.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                &output, &outputSize, Int32(sampling.turbo.rawValue), Int32(min(max(quality, 1), 100)), 0)
        }
        guard rc == 0, let output, outputSize > 0 else { return (nil, String(cString: tjGetErrorStr2(encoder))) }
        return (Data(bytes: output, count: Int(outputSize)), nil)
    }
}
