import CairnCore
import Foundation
import PhotoMetadata

/// The image adapter: opens JPEG, PNG, HEIC and WebP (libvips 8.14 + libheif), applies the EXIF orientation,
/// reads the capture date before anything is stripped, refuses oversized or damaged files before decoding,
/// and writes JPEGs that carry no metadata. Every JPEG it writes is a new file made by libjpeg: nothing of the
/// source's marker stream or entropy-coded bytes is copied (see `IngestStrategy`).
/// Safe to use from several threads at once.
public final class ImagePipeline: Sendable {
    /// The limits checked on every call before any pixel is decoded.
    public let limits: ImageLimits
    /// JPEG quality for re-encoded full-size photos and `encodeJPEG` callers that keep the default.
    public let fullSizeQuality: Int
    /// JPEG quality for thumbnails.
    public let thumbnailQuality: Int

    /// `ImagePipeline.planarLimit` and `ImagePipeline.turnLimit`, unless a test asks for less.
    let planarLimit: Int
    let turnLimit: Int

    /// Makes a pipeline; starts libvips on first use (once per process).
    public convenience init(limits: ImageLimits = ImageLimits(), fullSizeQuality: Int = 90, thumbnailQuality: Int = 85) {
        self.init(
            limits: limits, fullSizeQuality: fullSizeQuality, thumbnailQuality: thumbnailQuality,
            planarLimit: Self.planarLimit, turnLimit: Self.turnLimit)
    }

    /// A pipeline with other plane limits (tests turn small photos in bands with this).
    init(
        limits: ImageLimits = ImageLimits(), fullSizeQuality: Int = 90, thumbnailQuality: Int = 85, planarLimit: Int,
        turnLimit: Int
    ) {
        self.limits = limits
        self.fullSizeQuality = min(max(fullSizeQuality, 1), 100)
        self.thumbnailQuality = min(max(thumbnailQuality, 1), 100)
        self.planarLimit = max(planarLimit, 1)
        self.turnLimit = max(turnLimit, 1)
    }

    // MARK: - Reading

    /// Reads the header only: format, upright size, orientation and capture date. Throws `ImagingError` for an
    /// empty, unknown, damaged, unsupported or oversized file (the pixel limit is checked before decoding).
    public func probe(_ data: Data) throws -> ImageInfo {
        try checkBytes(data)
        return try data.withUnsafeBytes { bytes in
            let format = try detectFormat(bytes)
            let image = try open(bytes, format: format, sequential: true)
            return try headerInfo(of: image, format: format)
        }
    }

    /// Produces the upright, metadata-free full-size JPEG and a thumbnail whose longer side is at most
    /// `thumbnailSide`. `verify` is called on each produced JPEG (pass the metadata inspector); its error
    /// propagates. Nothing is written to disk.
    ///
    /// `preview` is an upright sRGB copy of the same photo the caller decoded already (`decodeRGB(_:maxSide:)`
    /// with `maxSide` at least `thumbnailSide`): on the planar path the thumbnail is shrunk from it instead of
    /// decoding the photo a second time (the decode's Huffman pass was a tenth of a 12 MP `skin log`). A preview
    /// that is smaller than the thumbnail would be, or of another shape than the photo, is not used.
    public func ingest(
        _ data: Data, thumbnailSide: Int = 512, strategy: IngestStrategy = .automatic, preview: RGBImage? = nil,
        verify: (Data) throws -> Void
    ) throws -> IngestedPhoto {
        precondition(thumbnailSide > 0, "thumbnailSide must be positive")
        try checkBytes(data)
        let (full, info, width, height, path, madeThumbnail) = try data.withUnsafeBytes {
            (bytes: UnsafeRawBufferPointer) throws -> (Data, ImageInfo, Int, Int, IngestPath, Thumbnail?) in
            let format = try detectFormat(bytes)
            // Opened to be read once, top to bottom (memory stays near a strip's size); only a photo that must
            // turn is opened again for reading at random, which decodes it whole into memory.
            let image = try open(bytes, format: format, sequential: true)
            let info = try headerInfo(of: image, format: format)
            if format == .jpeg, strategy == .automatic,
                let planar = planarUpright(
                    data, bytes: bytes, image: image, info: info, thumbnailSide: thumbnailSide,
                    preview: preview.flatMap { usable($0, asPreviewOf: info, thumbnailSide: thumbnailSide) })
            {
                return (planar.jpeg, info, planar.width, planar.height, .planarReencode, planar.thumbnail)
            }
            if format == .jpeg, strategy != .alwaysReencode,
                strategy == .losslessWherePossible,
                let lossless = losslessUpright(bytes, image: image, info: info)
            {
                return (lossless.jpeg, info, lossless.width, lossless.height, lossless.path, nil)
            }
            let source = info.orientation == 1 ? image : try open(bytes, format: format, sequential: false)
            let upright = try source.autorotated().srgb8()
            let jpeg = try upright.jpeg(quality: fullSizeQuality)
            return (jpeg, info, upright.width, upright.height, .reencode, nil)
        }
        return try finish(
            full, width: width, height: height, info: info, path: path, thumbnail: madeThumbnail,
            thumbnailSide: thumbnailSide, verify: verify)
    }

    /// `ingest` together with the copy `decodeRGB(_:maxSide: analysisSide)` makes, the thumbnail's source (as
    /// `preview`). For an upright 4:2:0 or 4:4:4 JPEG without a colour profile that libvips would shrink by 2 while
    /// loading, both come from one decode (`PlanarJPEG.rebuiltUpright`): the copy is libvips' resize of the same
    /// half-size pixels as libjpeg's decode at half size, but for their luma, the mean of each 2 x 2 of decoded samples
    /// rather than a 4x4 reduced inverse DCT (measured on a 12 MP photo at 800 px: RMS 0.42 of a level, at most 2).
    /// Any other photo is decoded twice, as `decodeRGB` and `ingest` do. Throws as they do.
    public func ingest(
        _ data: Data, thumbnailSide: Int = 512, analysisSide: Int,
        verify: (Data) throws -> Void
    ) throws -> (photo: IngestedPhoto, analysis: RGBImage) {
        precondition(thumbnailSide > 0 && analysisSide > 0, "sides must be positive")
        try checkBytes(data)
        let shared = try data.withUnsafeBytes { bytes -> (Data, ImageInfo, RGBImage)? in
            let format = try detectFormat(bytes)
            guard format == .jpeg else { return nil }
            let image = try open(bytes, format: format, sequential: true)
            let info = try headerInfo(of: image, format: format)
            // libvips' thumbnail shrinks a JPEG by 2 while loading when it must shrink 4 to 8 times (thumbnail.c).
            let shrink = max(Double(info.width), Double(info.height)) / Double(analysisSide)
            guard info.orientation == 1, shrink >= 4, shrink < 8, image.blob("icc-profile-data") == nil,
                let header = PlanarJPEG.header(bytes), header.sampling == .s420 || header.sampling == .s444,
                PlanarJPEG.planeBytes(header) <= planarLimit
            else { return nil }
            let rebuilt = PlanarJPEG.rebuiltUpright(bytes, quality: fullSizeQuality, half: true)
            guard let jpeg = rebuilt.jpeg, let half = rebuilt.half, rebuilt.width == info.width,
                rebuilt.height == info.height
            else { return nil }
            let analysis = try withExtendedLifetime(half) {
                try makeRGB(
                    try VipsImageRef.wrap(
                        VipsImageRef.thumbnail(
                            rgb: half.pixels, width: half.width, height: half.height,
                            maxWidth: analysisSide, maxHeight: analysisSide),
                        orThrow: .corrupt
                    ).srgb8())
            }
            return (jpeg, info, analysis)
        }
        guard let (full, info, analysis) = shared else {
            // Libvips' own analysis copy, then the pipeline's path with it as the thumbnail's source.
            let analysis = try decodeRGB(data, maxSide: analysisSide)
            return (try ingest(data, thumbnailSide: thumbnailSide, preview: analysis, verify: verify), analysis)
        }
        let thumbnail = try Self.thumbnail(of: analysis, fittingIn: thumbnailSide, quality: thumbnailQuality)
        return (
            try finish(
                full, width: info.width, height: info.height, info: info, path: .planarReencode,
                thumbnail: thumbnail, thumbnailSide: thumbnailSide, verify: verify), analysis
        )
    }

    /// The last steps of `ingest`: checks and verifies the full-size JPEG and the thumbnail (made now, from the new
    /// JPEG, when none was made on the way).
    private func finish(
        _ full: Data, width: Int, height: Int, info: ImageInfo, path: IngestPath, thumbnail made: Thumbnail?,
        thumbnailSide: Int, verify: (Data) throws -> Void
    ) throws -> IngestedPhoto {
        try checkClean(full)
        try verify(full)

        let thumbnail: Thumbnail
        if let made {
            thumbnail = made
        } else {
            // Shrink-on-load from the new JPEG (cheap: DCT scaling), which also proves it decodes. (Shrinking the
            // re-encode path's pixels instead was measured 10x slower: with the cache off libvips recomputes them.)
            let small = try full.withUnsafeBytes { bytes in
                try VipsImageRef.wrap(
                    VipsImageRef.thumbnail(bytes, width: thumbnailSide, height: thumbnailSide),
                    orThrow: .writeFailed
                ).srgb8()
            }
            thumbnail = Thumbnail(jpeg: try small.jpeg(quality: thumbnailQuality), width: small.width, height: small.height)
        }
        try checkClean(thumbnail.jpeg)
        try verify(thumbnail.jpeg)

        return IngestedPhoto(
            jpeg: full, thumbnail: thumbnail.jpeg, width: width, height: height,
            thumbnailWidth: thumbnail.width, thumbnailHeight: thumbnail.height,
            captureDate: info.captureDate, sourceFormat: info.format, path: path)
    }

    /// Decodes to upright 8-bit sRGB pixels (alpha flattened on white). With `maxSide`, the picture is
    /// shrunk while loading so its longer side is at most `maxSide` (never enlarged).
    public func decodeRGB(_ data: Data, maxSide: Int? = nil) throws -> RGBImage {
        if let maxSide { precondition(maxSide > 0, "maxSide must be positive") }
        try checkBytes(data)
        return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> RGBImage in
            let format = try detectFormat(bytes)
            let header = try open(bytes, format: format, sequential: true)
            let info = try headerInfo(of: header, format: format)
            let loaded: VipsImageRef
            if let maxSide, format == .png, info.orientation == 1 {
                // PNG has no shrink-on-load, and libvips' thumbnail of one decodes it whole first (a 99 MP PNG:
                // 297 MB): the header's image is read once, top to bottom, and shrunk as it streams.
                let (width, height) = Self.size(ofWidth: info.width, height: info.height, fittingIn: maxSide)
                loaded = width == info.width && height == info.height ? header : try header.resized(width: width, height: height)
            } else if let maxSide {
                loaded = try VipsImageRef.wrap(
                    VipsImageRef.thumbnail(bytes, width: maxSide, height: maxSide),
                    orThrow: .corrupt)
            } else {
                loaded = try open(bytes, format: format, sequential: false).autorotated()
            }
            // Pixels are computed inside the closure: the loader reads `bytes` lazily.
            return try makeRGB(try loaded.srgb8())
        }
    }

    /// Decodes an upright 8-bit sRGB copy whose longer side is at most `maxSide` and, for a photo larger than
    /// that, at least 90% of it: a JPEG is shrunk while decoding by the largest power of two (2, 4 or 8, libjpeg's
    /// DCT scaling) that leaves that much, and only what is then still over `maxSide` is resampled (lanczos3).
    /// Cheaper than `decodeRGB(_:maxSide:)`, whose exact size costs libvips a full decode whenever the photo is
    /// less than four times too large (a 12 MP JPEG to 1000 px: 190 ms of CPU against 20 ms at 1/4); for a copy
    /// that only has to be about so large (finding a face). Other formats go through `decodeRGB(_:maxSide:)`.
    public func decodeRGB(_ data: Data, approximatelyFitting maxSide: Int) throws -> RGBImage {
        precondition(maxSide > 0, "maxSide must be positive")
        try checkBytes(data)
        let shrunk = try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> RGBImage? in
            let format = try detectFormat(bytes)
            guard format == .jpeg else { return nil }
            let info = try headerInfo(of: try open(bytes, format: format, sequential: true), format: format)
            let longer = Double(max(info.width, info.height))
            guard let shrink = [8, 4, 2].first(where: { longer / Double($0) >= 0.9 * Double(maxSide) }) else { return nil }
            // Turning needs the whole (already shrunk) picture; an upright one is read in order.
            var image = try VipsImageRef.wrap(
                VipsImageRef.open(bytes, sequential: info.orientation == 1, shrink: shrink),
                orThrow: .corrupt)
            if info.orientation != 1 { image = try image.autorotated() }
            let side = max(image.width, image.height)
            if side > maxSide {
                let scale = Double(maxSide) / Double(side)
                image = try image.resized(
                    width: max(1, Int((Double(image.width) * scale).rounded())),
                    height: max(1, Int((Double(image.height) * scale).rounded())))
            }
            // Pixels are computed inside the closure: the loader reads `bytes` lazily.
            return try makeRGB(try image.srgb8())
        }
        return try shrunk ?? decodeRGB(data, maxSide: maxSide)
    }

    /// The upright rectangle `x, y, width, height` of an encoded photo at full resolution, in 8-bit sRGB; the
    /// rectangle is clipped to the photo. Only that part is colour-converted and copied out (converting a whole
    /// 12 MP photo from its ICC profile costs more than decoding it), and an upright photo is read only down to
    /// the rectangle's last row, so memory stays near the rectangle's size. Throws like `decodeRGB`, and
    /// `.corrupt` when nothing of the rectangle is inside the photo.
    public func decodeRGB(_ data: Data, x: Int, y: Int, width: Int, height: Int) throws -> RGBImage {
        try checkBytes(data)
        return try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> RGBImage in
            let format = try detectFormat(bytes)
            let stored = try open(bytes, format: format, sequential: true)
            let info = try headerInfo(of: stored, format: format)
            let left = max(x, 0)
            let top = max(y, 0)
            let right = min(x + width, info.width)
            let bottom = min(y + height, info.height)
            guard right > left, bottom > top else { throw ImagingError(.corrupt, libraryDetail: "the rectangle is outside the photo") }
            // Turning a photo upright needs all of it; an upright one is read in order, top to bottom (the rows
            // above the rectangle in strips, so memory does not grow with how far down it is).
            let upright: VipsImageRef
            if info.orientation == 1 {
                try stored.readRowsInStrips(top)
                upright = stored
            } else {
                upright = try open(bytes, format: format, sequential: false).autorotated()
            }
            return try makeRGB(try upright.extracted(x: left, y: top, width: right - left, height: bottom - top).srgb8())
        }
    }

    // MARK: - Writing

    /// Encodes pixels as a baseline JPEG with no metadata: libvips' encoder with `strip`, which writes no APP0
    /// (JFIF) segment either. `quality` is clamped to 1-100.
    public func encodeJPEG(_ image: RGBImage, quality: Int = 90) throws -> Data {
        try Vips.start()
        let jpeg = try VipsImageRef.fromRGB(image).jpeg(quality: min(max(quality, 1), 100))
        try checkClean(jpeg)
        return jpeg
    }

    /// The part of `image` inside the rectangle, clipped to the image; nil when nothing is left.
    public func crop(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> RGBImage? {
        let left = max(x, 0)
        let top = max(y, 0)
        let right = min(x + width, image.width)
        let bottom = min(y + height, image.height)
        guard right > left, bottom > top else { return nil }
        let w = right - left
        var out = [UInt8]()
        out.reserveCapacity(w * (bottom - top) * 3)
        for row in top..<bottom {
            let start = (row * image.width + left) * 3
            out.append(contentsOf: image.pixels[start..<(start + w * 3)])
        }
        return RGBImage(width: w, height: bottom - top, pixels: out)
    }

    /// `image` resampled to exactly `width` x `height` (the aspect ratio may change; lanczos3 via libvips).
    public func resize(_ image: RGBImage, width: Int, height: Int) throws -> RGBImage {
        precondition(width > 0 && height > 0, "resize needs a positive size")
        try Vips.start()
        return try makeRGB(try VipsImageRef.fromRGB(image).resized(width: width, height: height).srgb8())
    }

    /// `image` scaled down so its longer side is at most `maxSide`; returned unchanged when already small enough.
    public func resize(_ image: RGBImage, fittingIn maxSide: Int) throws -> RGBImage {
        precondition(maxSide > 0, "maxSide must be positive")
        guard max(image.width, image.height) > maxSide else { return image }
        let (width, height) = Self.size(ofWidth: image.width, height: image.height, fittingIn: maxSide)
        return try resize(image, width: width, height: height)
    }

    /// The size of a `width` x `height` picture scaled down so its longer side is `maxSide` (unchanged when it
    /// fits already); each side at least 1.
    static func size(ofWidth width: Int, height: Int, fittingIn maxSide: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > maxSide else { return (width, height) }
        let scale = Double(maxSide) / Double(longer)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    // MARK: - Internals

    private func checkBytes(_ data: Data) throws {
        try Vips.start()
        if data.isEmpty { throw ImagingError(.emptyFile) }
        if data.count > limits.maxBytes { throw ImagingError(.tooManyBytes(byteCount: data.count, limit: limits.maxBytes)) }
    }

    private func detectFormat(_ bytes: UnsafeRawBufferPointer) throws -> ImageFormat {
        guard let loader = VipsImageRef.loader(for: bytes) else { throw ImagingError(.notAnImage) }
        switch loader {
        case "VipsForeignLoadJpegBuffer": return .jpeg
        case "VipsForeignLoadPngBuffer": return .png
        case "VipsForeignLoadWebpBuffer": return .webp
        case "VipsForeignLoadHeifBuffer":
            // libheif also reads AVIF; Cairn takes HEIC only.
            if bytes.count >= 12, bytes[4] == 0x66, bytes[5] == 0x74, bytes[6] == 0x79, bytes[7] == 0x70,
                let brand = String(bytes: bytes[8..<12], encoding: .ascii), brand == "avif" || brand == "avis"
            {
                throw ImagingError(.unsupportedFormat)
            }
            return .heic
        default:
            throw ImagingError(.unsupportedFormat, libraryDetail: loader)
        }
    }

    private func open(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, sequential: Bool) throws -> VipsImageRef {
        if let pointer = VipsImageRef.open(bytes, sequential: sequential) { return VipsImageRef(pointer) }
        let detail = Vips.takeError()
        if format == .heic, VipsImageRef.heifImageCount(bytes) <= 0, VipsImageRef.heifImageCount(bytes) != -2 {
            throw ImagingError(.noImageInContainer, libraryDetail: detail)
        }
        throw ImagingError(.corrupt, libraryDetail: detail)
    }

    private func headerInfo(of image: VipsImageRef, format: ImageFormat) throws -> ImageInfo {
        let storedWidth = image.width
        let storedHeight = image.height
        let orientation = (1...8).contains(image.orientation) ? image.orientation : 1
        let swapped = orientation >= 5
        let width = swapped ? storedHeight : storedWidth
        let height = swapped ? storedWidth : storedHeight
        guard width > 0, height > 0 else { throw ImagingError(.corrupt) }
        if width.multipliedReportingOverflow(by: height).partialValue > limits.maxPixels {
            throw ImagingError(.tooManyPixels(width: width, height: height, limit: limits.maxPixels))
        }
        var captureDate: CaptureDate?
        if let exif = image.blob("exif-data") {
            // A damaged EXIF block loses the date, not the photo.
            captureDate = (try? ExifReader.read(exif))?.captureDate
        }
        return ImageInfo(format: format, width: width, height: height, orientation: orientation, captureDate: captureDate)
    }

    /// A finished thumbnail JPEG and its size.
    private struct Thumbnail: Sendable {
        let jpeg: Data
        let width: Int
        let height: Int
    }

    /// Carries the thumbnail thread's result back (written once before `done` is signalled, read after).
    private final class ThumbnailResult: @unchecked Sendable {
        var value: Thumbnail?
        let done = DispatchSemaphore(value: 0)
    }

    /// The most decoded plane bytes the planar re-encode holds for an upright JPEG (96 MiB: 32 MP at 4:4:4, 64 MP at
    /// 4:2:0). Above it the photo is streamed through libvips (read once, top to bottom, and encoded by libjpeg as it
    /// is read), slower but flat in memory: a 99 MP 4:4:4 JPEG held 297 MB of planes.
    public static let planarLimit = 96 << 20

    /// The most decoded plane bytes a planar turn holds (48 MiB: 16 MP at 4:4:4, 32 MP at 4:2:0; a 12 MP photo's
    /// planes are 36 MB at most). A whole turn holds the source's planes and a turned plane; a photo whose planes
    /// are larger is turned in bands of at most this size instead (`PlanarJPEG.uprightInBands`: the same file, one
    /// more pass over the source's coded data per band). Held whole, a 99 MP sideways 4:4:4 photo peaked at 462 MB.
    /// Measured on 99 MP 4:4:4 photos (`cairn-bench memory`; CPU of the whole `cairn skin log`): 96 MiB bands
    /// peaked at 227 MB for a 29 MB file (2.7 s), 48 MiB at 178 MB (3.3 s), 32 MiB at 163 MB (4.0 s).
    public static let turnLimit = 48 << 20

    /// `preview` when it can stand in for the photo in a thumbnail: upright like it (the same shape, within a pixel
    /// of rounding) and at least as large as the thumbnail made from the photo would be.
    private func usable(_ preview: RGBImage, asPreviewOf info: ImageInfo, thumbnailSide: Int) -> RGBImage? {
        let wanted = Self.size(ofWidth: info.width, height: info.height, fittingIn: thumbnailSide)
        guard preview.width >= wanted.width, preview.height >= wanted.height, preview.width <= info.width,
            preview.height <= info.height
        else { return nil }
        // The preview's other side, worked out from the photo's shape, may differ from its own by rounding only.
        let expected = Double(preview.width) * Double(info.height) / Double(info.width)
        return abs(expected - Double(preview.height)) <= 1 ? preview : nil
    }

    /// The planar re-encode of a JPEG (turned upright when it must turn), with its thumbnail shrunk from `preview`
    /// or, without one, made at the same time on a second thread from the source; nil (the caller takes the libvips
    /// route) when the JPEG is not YCbCr or grey, has a non-sRGB profile, has a subsampling that cannot turn, when
    /// libjpeg-turbo reports any error or warning, or when it is upright with planes above `planarLimit` (streamed by
    /// libvips instead).
    private func planarUpright(
        _ data: Data, bytes: UnsafeRawBufferPointer, image: VipsImageRef, info: ImageInfo,
        thumbnailSide: Int, preview: RGBImage?
    ) -> (jpeg: Data, width: Int, height: Int, thumbnail: Thumbnail)? {
        guard let header = PlanarJPEG.header(bytes), PlanarJPEG.canTurn(header, orientation: info.orientation) else {
            return nil
        }
        let planes = PlanarJPEG.planeBytes(header)
        // A large upright photo is streamed through libvips instead, so its planes are never all held at once.
        if info.orientation == 1, planes > planarLimit { return nil }
        let inBands = info.orientation != 1 && planes > turnLimit
        // Dropping a non-sRGB profile would shift colours: those photos are converted to sRGB by libvips.
        if let icc = image.blob("icc-profile-data"), !JPEGSegments.isSRGBProfile(icc) { return nil }

        // Without a preview, the thumbnail on its own thread (a Thread, not a shared queue: a caller may already be
        // filling the queue's worker threads, and this one must run now). It reads its own copy of `data`
        // (copy-on-write: no bytes are copied).
        let result = ThumbnailResult()
        let orientation = info.orientation
        let quality = thumbnailQuality
        if let preview {
            result.value = try? ImagePipeline.thumbnail(of: preview, fittingIn: thumbnailSide, quality: quality)
            result.done.signal()
        } else {
            let worker = Thread {
                defer {
                    Vips.threadFinished()
                    result.done.signal()
                }
                let rgb = data.withUnsafeBytes { PlanarJPEG.uprightRGB($0, orientation: orientation, atLeast: thumbnailSide) }
                guard let upright = rgb.image else { return }
                result.value = try? ImagePipeline.thumbnail(of: upright, fittingIn: thumbnailSide, quality: quality)
            }
            worker.start()
        }
        let full: (jpeg: Data?, width: Int, height: Int)
        if inBands {
            let banded = PlanarJPEG.uprightInBands(
                bytes, orientation: info.orientation, quality: fullSizeQuality,
                bandBytes: turnLimit)
            full = (banded.jpeg, banded.width, banded.height)
        } else if info.orientation == 1 {
            let rebuilt = PlanarJPEG.rebuiltUpright(bytes, quality: fullSizeQuality, half: false)
            full = (rebuilt.jpeg, rebuilt.width, rebuilt.height)
        } else {
            let whole = PlanarJPEG.upright(bytes, orientation: info.orientation, quality: fullSizeQuality)
            full = (whole.jpeg, whole.width, whole.height)
        }
        result.done.wait()
        guard let jpeg = full.jpeg, full.width == info.width, full.height == info.height, let thumbnail = result.value
        else { return nil }
        return (jpeg, full.width, full.height, thumbnail)
    }

    /// `image` shrunk with libvips (lanczos3, `VipsImageRef.thumbnailShrunk`) so its longer side is at most `side`
    /// (never enlarged), encoded as a metadata-free JPEG.
    private static func thumbnail(of image: RGBImage, fittingIn side: Int, quality: Int) throws -> Thumbnail {
        let (width, height) = size(ofWidth: image.width, height: image.height, fittingIn: side)
        var small = try VipsImageRef.fromRGB(image)
        if width != image.width || height != image.height {
            small = try small.thumbnailShrunk(width: width, height: height).srgb8()
        }
        return Thumbnail(jpeg: try small.jpeg(quality: quality), width: width, height: height)
    }

    /// The lossless result, or nil when the source needs the re-encode path.
    private func losslessUpright(_ bytes: UnsafeRawBufferPointer, image: VipsImageRef, info: ImageInfo)
        -> (jpeg: Data, width: Int, height: Int, path: IngestPath)?
    {
        guard let header = LosslessJPEG.header(bytes), header.jfifColorspace else { return nil }
        // Dropping a non-sRGB profile would shift colours: those photos are converted to sRGB by re-encoding.
        if let icc = image.blob("icc-profile-data"), !JPEGSegments.isSRGBProfile(icc) { return nil }
        // The DCT coefficients, turned when the orientation asks for it, are written by libjpeg into a new file:
        // fresh markers, Huffman data coded again (so nothing hidden in the source's scan survives), every
        // extra marker dropped (COPYNONE). The quantisation tables are the source's (see `IngestStrategy`).
        guard let jpeg = LosslessJPEG.upright(bytes, orientation: info.orientation).jpeg else { return nil }
        let size: LosslessJPEG.Header? = jpeg.withUnsafeBytes { LosslessJPEG.header($0) }
        guard let size, size.width == info.width, size.height == info.height else { return nil }
        return (jpeg, size.width, size.height, .losslessTransform)
    }

    private func checkClean(_ jpeg: Data) throws {
        if let problem = JPEGSegments.firstNonCodingSegment(in: jpeg) {
            throw ImagingError(.writeFailed, libraryDetail: "output check: \(problem)")
        }
    }

    private func makeRGB(_ image: VipsImageRef) throws -> RGBImage {
        let pixels = try image.memory()
        guard let rgb = RGBImage(checkingWidth: image.width, height: image.height, pixels: pixels) else {
            throw ImagingError(.corrupt, libraryDetail: "unexpected pixel layout")
        }
        return rgb
    }
}
