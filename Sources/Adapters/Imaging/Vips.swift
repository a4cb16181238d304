import CairnCore
import Foundation
internal import VipsShim

/// libvips, started once per process (Swift runs a global's initialiser exactly once, thread-safely).
/// Every public entry point that reaches libvips calls `start()` first: a libvips call racing its start fails.
enum Vips {
    private static let started: Bool = cairn_vips_init() == 0

    static func start() throws {
        guard started else { throw ImagingError(.writeFailed, libraryDetail: "libvips failed to start") }
    }

    /// Frees libvips' per-thread buffers; call last in a thread Cairn started that used libvips.
    static func threadFinished() { cairn_vips_thread_shutdown() }

    /// Takes (and clears) libvips' error text.
    static func takeError() -> String {
        guard let text = cairn_vips_error_take() else { return "" }
        defer { cairn_free(text) }
        return String(cString: text)
    }

    /// Copies a g_malloc'd buffer into Data and frees it.
    static func takeBuffer(_ pointer: UnsafeMutableRawPointer?, count: Int) -> Data {
        guard let pointer else { return Data() }
        defer { cairn_free(pointer) }
        return Data(bytes: pointer, count: count)
    }
}

/// One libvips image reference, released when the Swift object goes away.
final class VipsImageRef {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { cairn_image_unref(pointer) }

    /// Wraps a pointer returned by a shim call, or throws `kind` with libvips' error text.
    static func wrap(_ pointer: OpaquePointer?, orThrow kind: ImagingError.Kind) throws -> VipsImageRef {
        guard let pointer else { throw ImagingError(kind, libraryDetail: Vips.takeError()) }
        return VipsImageRef(pointer)
    }

    var width: Int { Int(cairn_image_width(pointer)) }
    var height: Int { Int(cairn_image_height(pointer)) }
    var orientation: Int { Int(cairn_image_orientation(pointer)) }

    /// A copy of a metadata blob ("exif-data", "icc-profile-data"), nil when absent.
    func blob(_ name: String) -> Data? {
        var bytes: UnsafeRawPointer?
        var count = 0
        guard cairn_image_get_blob(pointer, name, &bytes, &count) == 0, let bytes, count > 0 else {
            _ = Vips.takeError()
            return nil
        }
        return Data(bytes: bytes, count: count)
    }

    func autorotated() throws -> VipsImageRef {
        try .wrap(cairn_autorot(pointer), orThrow: .corrupt)
    }

    /// The image computed once into memory: later reads do not recompute it (the operation cache is off).
    func inMemory() throws -> VipsImageRef {
        try .wrap(cairn_ocr_in_memory(pointer), orThrow: .corrupt)
    }

    func extracted(x: Int, y: Int, width: Int, height: Int) throws -> VipsImageRef {
        try .wrap(cairn_extract_area(pointer, Int32(x), Int32(y), Int32(width), Int32(height)), orThrow: .corrupt)
    }

    /// Reads and drops the first `rows` rows of a sequentially opened image in strips (see the shim), so a later
    /// rectangle further down does not make libvips hold every row above it.
    func readRowsInStrips(_ rows: Int) throws {
        guard rows > 0 else { return }
        if cairn_read_rows_in_strips(pointer, Int32(rows)) != 0 { throw ImagingError(.corrupt, libraryDetail: Vips.takeError()) }
    }

    func srgb8() throws -> VipsImageRef {
        try .wrap(cairn_to_srgb8(pointer), orThrow: .corrupt)
    }

    func resized(width: Int, height: Int) throws -> VipsImageRef {
        try .wrap(cairn_resize_exact(pointer, Int32(width), Int32(height)), orThrow: .writeFailed)
    }

    /// Shrunk to exactly `width` x `height` (at most its own size) for a thumbnail: lanczos3 as `resized`; by less
    /// than 2 on each side, twice as fast (`cairn_thumbnail_shrink` says how) with pixels within a few levels of its.
    func thumbnailShrunk(width: Int, height: Int) throws -> VipsImageRef {
        try .wrap(cairn_thumbnail_shrink(pointer, Int32(width), Int32(height)), orThrow: .writeFailed)
    }

    /// JPEG bytes with no metadata. Pixel decoding happens here, so a damaged source fails here as `.corrupt`.
    func jpeg(quality: Int) throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var count = 0
        guard cairn_jpegsave_buffer(pointer, Int32(quality), &buffer, &count) == 0, buffer != nil else {
            throw ImagingError(.corrupt, libraryDetail: Vips.takeError())
        }
        return Vips.takeBuffer(buffer, count: count)
    }

    /// The pixels, packed (8-bit images: one byte per sample). libvips computes them straight into the array: no
    /// second copy, and no zero-filled buffer that is written over at once.
    func memory() throws -> [UInt8] {
        let count = Int(cairn_image_byte_count(pointer))
        var failed = false
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed = cairn_image_write_into(pointer, buffer.baseAddress, count) != 0
            initialized = failed ? 0 : count
        }
        if failed { throw ImagingError(.corrupt, libraryDetail: Vips.takeError()) }
        return pixels
    }

    static func fromRGB(_ image: RGBImage) throws -> VipsImageRef {
        let pointer = image.pixels.withUnsafeBytes { raw in
            cairn_image_new_from_rgb(raw.baseAddress, raw.count, Int32(image.width), Int32(image.height))
        }
        return try .wrap(pointer, orThrow: .writeFailed)
    }

    /// Opens encoded bytes (header only). `bytes` must stay valid while the image is used.
    static func open(_ bytes: UnsafeRawBufferPointer, sequential: Bool) -> OpaquePointer? {
        cairn_image_new_from_buffer(bytes.baseAddress, bytes.count, sequential ? 1 : 0)
    }

    /// Opens JPEG bytes to be decoded at 1/`shrink` (1, 2, 4 or 8: libjpeg's DCT scaling), as `open`.
    static func open(_ bytes: UnsafeRawBufferPointer, sequential: Bool, shrink: Int) -> OpaquePointer? {
        cairn_jpeg_new_from_buffer_shrunk(bytes.baseAddress, bytes.count, sequential ? 1 : 0, Int32(shrink))
    }

    /// A shrink-on-load, autorotated thumbnail of encoded bytes.
    static func thumbnail(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) -> OpaquePointer? {
        cairn_thumbnail_buffer(bytes.baseAddress, bytes.count, Int32(width), Int32(height))
    }

    /// `thumbnail`'s resize of upright 8-bit RGB pixels (`width` x `height`, 3 bytes each) to fit `maxWidth` x
    /// `maxHeight`, read in place: the pixels must stay until the result has been computed.
    static func thumbnail(rgb pixels: UnsafeRawPointer, width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> OpaquePointer? {
        cairn_thumbnail_rgb(pixels, width * height * 3, Int32(width), Int32(height), Int32(maxWidth), Int32(maxHeight))
    }

    /// The loader libvips picks by signature, nil when none.
    static func loader(for bytes: UnsafeRawBufferPointer) -> String? {
        guard let name = cairn_loader_for_buffer(bytes.baseAddress, bytes.count) else {
            _ = Vips.takeError()
            return nil
        }
        return String(cString: name)
    }

    /// libheif's view of a HEIF container: >= 0 images, -1 no image item at all, -2 unreadable.
    static func heifImageCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        Int(cairn_heif_top_level_image_count(bytes.baseAddress, bytes.count))
    }
}
