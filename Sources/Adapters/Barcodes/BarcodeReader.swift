internal import CZBar
import CairnCore
import Foundation
import Imaging
internal import NativeLoader
import Regimen

/// Reads a product's barcode (EAN-13, UPC-A, UPC-E, EAN-8) from a photo or a camera frame with zbar (Debian's
/// libzbar, opened on first use), as GTIN-14. The photo is decoded in memory, shrunk while loading to about
/// `workingSide` pixels on its longer side, turned to grey and scanned; nothing is written or kept.
public struct BarcodeReader: Sendable {
    /// The longer side, in pixels, of the grey copy zbar scans first (a 12 MP photo is shrunk by 2 while decoding).
    public let workingSide: Int

    /// A reader.
    public init(workingSide: Int = 2048) {
        self.workingSide = max(256, workingSide)
    }

    /// Whether libzbar is installed (`cairn doctor`, and doors that offer reading a barcode).
    public static var isAvailable: Bool { cairn_zbar_available() != 0 }

    /// The barcodes in the photo `imageData`, in the order zbar found them, each once; empty when none can be read.
    /// A photo larger than `workingSide` in which none is found is scanned again at up to twice that size (a small
    /// barcode in a wide photo). Throws `ImagingError` for bytes that are not a readable image, and
    /// `BarcodeError.unavailable` when libzbar is not installed.
    public func read(imageData: Data) throws -> [GTIN] {
        guard Self.isAvailable else { throw BarcodeError.unavailable }
        let pipeline = ImagePipeline()
        let image = try pipeline.decodeRGB(imageData, approximatelyFitting: workingSide)
        let found = read(rgb: image)
        if found.isEmpty, max(image.width, image.height) >= workingSide * 9 / 10 {
            let larger = try pipeline.decodeRGB(imageData, approximatelyFitting: workingSide * 2)
            if max(larger.width, larger.height) > max(image.width, image.height) { return read(rgb: larger) }
        }
        return found
    }

    /// The barcodes in an RGB image.
    public func read(rgb image: RGBImage) -> [GTIN] {
        var grey = [UInt8](repeating: 0, count: image.width * image.height)
        image.pixels.withUnsafeBufferPointer { rgb in
            for i in 0..<grey.count {
                // Rec. 601 luma in integers.
                let r = Int(rgb[3 * i])
                let g = Int(rgb[3 * i + 1])
                let b = Int(rgb[3 * i + 2])
                grey[i] = UInt8((77 * r + 150 * g + 29 * b) >> 8)
            }
        }
        return read(grey: grey, width: image.width, height: image.height)
    }

    /// The barcodes in an 8-bit grey image of `width` x `height` (row after row).
    public func read(grey: [UInt8], width: Int, height: Int) -> [GTIN] {
        precondition(grey.count == width * height, "grey image size mismatch")
        guard Self.isAvailable, let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        // Only the product codes: no QR codes, no Code 128 shipping labels.
        _ = zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in [ZBAR_EAN13, ZBAR_EAN8, ZBAR_UPCA, ZBAR_UPCE] {
            _ = zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, 1)
        }
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        // "Y800": 8-bit grey.
        zbar_image_set_format(image, 0x3030_3859)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return grey.withUnsafeBytes { bytes -> [GTIN] in
            zbar_image_set_data(image, bytes.baseAddress, UInt(bytes.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var found: [GTIN] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let data = zbar_symbol_get_data(current) {
                    let text = String(cString: data)
                    let gtin = zbar_symbol_get_type(current) == ZBAR_UPCE ? GTIN(upcE: text) : GTIN(text)
                    if let gtin, !found.contains(gtin) { found.append(gtin) }
                }
                symbol = zbar_symbol_next(current)
            }
            // Bars scanned inside out can give a number whose check digit is wrong: those are not barcodes.
            return found.filter(\.hasValidCheckDigit)
        }
    }
}

/// Why a barcode could not be read.
public enum BarcodeError: CairnError, Equatable {
    /// libzbar is not installed.
    case unavailable

    public var userMessage: String {
        "Reading barcodes needs the zbar library, which is not installed on this computer (Debian: libzbar0). Search by name instead."
    }

    public var errorKind: ErrorKind { .unavailable }
}

extension BarcodeReader {
    /// libzbar as `cairn doctor` reports it (opened here: `cairn` opens it on first use).
    public static func status() -> ComponentStatus {
        guard isAvailable else { return ComponentStatus(name: "zbar", role: "barcodes read from a photo", present: false, version: nil) }
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var patch: UInt32 = 0
        _ = zbar_version(&major, &minor, &patch)
        return ComponentStatus(name: "zbar", role: "barcodes read from a photo", present: true, version: "\(major).\(minor).\(patch)")
    }
}
