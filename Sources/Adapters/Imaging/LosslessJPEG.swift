internal import CTurboJPEG
import Foundation

/// The lossless path for JPEG sources, through libjpeg-turbo's TurboJPEG transform API (2.1: tjTransform).
/// The DCT coefficients are copied (rotated or flipped when the orientation asks for it) into a new file that
/// holds only the image-coding segments and the JFIF APP0 header libjpeg writes for YCbCr and grey images.
enum LosslessJPEG {
    /// The header facts the path depends on.
    struct Header {
        let width: Int
        let height: Int
        /// True for YCbCr or greyscale JPEGs (libjpeg writes JFIF for those; RGB/CMYK would get an Adobe APP14).
        let jfifColorspace: Bool
    }

    static func header(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), let handle = tjInitDecompress() else {
            return nil
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0 else {
            return nil
        }
        let jfif = colorspace == Int32(TJCS_YCbCr.rawValue) || colorspace == Int32(TJCS_GRAY.rawValue)
        return Header(width: Int(width), height: Int(height), jfifColorspace: jfif)
    }

    /// The transform that turns an image with EXIF `orientation` upright.
    static func operation(forOrientation orientation: Int) -> TJXOP {
        switch orientation {
        case 2: return TJXOP_HFLIP
        case 3: return TJXOP_ROT180
        case 4: return TJXOP_VFLIP
        case 5: return TJXOP_TRANSPOSE
        case 6: return TJXOP_ROT90
        case 7: return TJXOP_TRANSVERSE
        case 8: return TJXOP_ROT270
        default: return TJXOP_NONE
        }
    }

    /// Rotates/flips upright and drops every non-coding segment. Returns nil (with libjpeg-turbo's reason)
    /// when the transform cannot be perfect (partial MCU blocks at an edge that would move), on any libjpeg
    /// warning (e.g. data cut short), or on an error: the caller then re-encodes.
    static func upright(_ bytes: UnsafeRawBufferPointer, orientation: Int) -> (jpeg: Data?, failure: String?) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), let handle = tjInitTransform() else {
            return (nil, "TurboJPEG could not start")
        }
        defer { tjDestroy(handle) }
        var transform = tjtransform()
        transform.op = Int32(operation(forOrientation: orientation).rawValue)
        transform.options = TJXOPT_COPYNONE | TJXOPT_PERFECT
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
        let rc = tjTransform(handle, base, UInt(bytes.count), 1, &output, &outputSize, &transform, flags)
        defer { if let output { tjFree(output) } }
        guard rc == 0, let output, outputSize > 0 else {
            return (nil, String(cString: tjGetErrorStr2(handle)))
        }
        return (Data(bytes: output, count: Int(outputSize)), nil)
    }
}
