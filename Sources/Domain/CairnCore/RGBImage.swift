/// An 8-bit sRGB image in memory: row-major, 3 bytes (R, G, B) per pixel, top-left origin.
///
/// The domain modules (Skin, Smile) analyse these; the Imaging adapter decodes files into them and encodes
/// them back, so no C image type ever reaches the domain.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes.
    public var pixels: [UInt8]

    /// An image over `pixels`; traps if the count does not match the size (a programming error).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "RGBImage size mismatch")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image over `pixels`, or nil when a side is not positive or the byte count does not match
    /// (for pixels that come from outside, such as a decoder).
    public init?(checkingWidth width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The (R, G, B) of the pixel at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = offset(x: x, y: y)
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// A uniform image of one colour.
    public init(width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8) {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: pixels.count, by: 3) {
            pixels[i] = red
            pixels[i + 1] = green
            pixels[i + 2] = blue
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The byte offset of pixel (x, y).
    @inline(__always) public func offset(x: Int, y: Int) -> Int { (y * width + x) * 3 }
}
