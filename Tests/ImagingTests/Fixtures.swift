import CairnCore
import CairnTestSupport
import Foundation
import Imaging

/// Test material made on the fly: synthetic pictures, files converted by the `vips` and `exiftool` tools.
enum Fixtures {
    /// A temporary directory removed when the last reference goes.
    final class TempDir {
        private let scratch: Scratch
        var url: URL { scratch.url }
        init() throws { scratch = try Scratch() }
        func file(_ name: String) -> URL { scratch.file(name) }
        deinit { scratch.remove() }
    }

    /// Runs a tool by name; throws with its output when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        try Tools.run(tool: tool, arguments)
    }

    /// A picture with a red block in its top-left quarter, blue elsewhere, and a green bottom row band,
    /// so orientation mistakes show.
    static func markerImage(width: Int = 64, height: Int = 48) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                if x < width / 2 && y < height / 2 {
                    pixels[i] = 220
                    pixels[i + 1] = 20
                    pixels[i + 2] = 20
                } else if y >= height - height / 4 {
                    pixels[i] = 20
                    pixels[i + 1] = 200
                    pixels[i + 2] = 20
                } else {
                    pixels[i] = 20
                    pixels[i + 1] = 20
                    pixels[i + 2] = 220
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// A textured picture (gradients and noise) whose JPEG is not trivially small.
    static func texturedImage(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Int(seed >> 27)
                let i = (y * width + x) * 3
                pixels[i] = UInt8((x * 255 / max(width - 1, 1) + noise) & 0xFF)
                pixels[i + 1] = UInt8((y * 255 / max(height - 1, 1) + noise) & 0xFF)
                pixels[i + 2] = UInt8(((x + y) & 0x3F) * 4)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// `image` turned 90 degrees counter-clockwise: what a camera stores for EXIF orientation 6.
    static func rotatedCounterClockwise(_ image: RGBImage) -> RGBImage {
        let w = image.height
        let h = image.width
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                // Output (x, y) shows source column (width - 1 - y), row x.
                let p = image.pixel(x: image.width - 1 - y, y: x)
                let i = (y * w + x) * 3
                out[i] = p.r
                out[i + 1] = p.g
                out[i + 2] = p.b
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// What a camera stores so that EXIF `orientation` (1-8) shows `upright`: the inverse of the turn a viewer
    /// applies. (Orientation 6 gives the same picture as `rotatedCounterClockwise`.)
    static func stored(_ upright: RGBImage, forOrientation orientation: Int) -> RGBImage {
        let swapped = orientation >= 5
        let sw = swapped ? upright.height : upright.width
        let sh = swapped ? upright.width : upright.height
        var out = [UInt8](repeating: 0, count: sw * sh * 3)
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                // The stored sample a viewer shows at upright (x, y), per the EXIF definitions.
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (sw - 1 - x, y)
                case 3: (sx, sy) = (sw - 1 - x, sh - 1 - y)
                case 4: (sx, sy) = (x, sh - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, sh - 1 - x)
                case 7: (sx, sy) = (sw - 1 - y, sh - 1 - x)
                case 8: (sx, sy) = (sw - 1 - y, x)
                default: (sx, sy) = (x, y)
                }
                let p = upright.pixel(x: x, y: y)
                let i = (sy * sw + sx) * 3
                out[i] = p.r
                out[i + 1] = p.g
                out[i + 2] = p.b
            }
        }
        return RGBImage(width: sw, height: sh, pixels: out)
    }

    /// A minimal ICC v2 display profile with the Adobe RGB (1998) primaries and gamma (matrix/TRC, D50): a
    /// valid non-sRGB profile for the colour-conversion route (none ships on this machine).
    static func adobeRGBProfile() -> Data {
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func s15(_ v: Double) -> [UInt8] { u32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z) }
        let name = Array("Adobe RGB (1998)".utf8) + [0]
        let desc =
            Array("desc".utf8) + [0, 0, 0, 0] + u32(UInt32(name.count)) + name + u32(0) + u32(0)
            + [0, 0, 0] + [UInt8](repeating: 0, count: 67)
        let text = Array("text".utf8) + [0, 0, 0, 0] + Array("No copyright, test profile".utf8) + [0]
        let curve = Array("curv".utf8) + [0, 0, 0, 0] + u32(1) + [0x02, 0x33] + [0, 0]  // gamma 563/256
        let tags: [(String, [UInt8])] = [
            ("desc", desc), ("cprt", text), ("wtpt", xyz(0.9642, 1.0, 0.8249)),
            ("rXYZ", xyz(0.60974, 0.31111, 0.01947)), ("gXYZ", xyz(0.20528, 0.62567, 0.06087)),
            ("bXYZ", xyz(0.14919, 0.06322, 0.74457)), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var table: [UInt8] = u32(UInt32(tags.count))
        var body: [UInt8] = []
        let bodyStart = 128 + 4 + tags.count * 12
        for (signature, data) in tags {
            table += Array(signature.utf8) + u32(UInt32(bodyStart + body.count)) + u32(UInt32(data.count))
            body += data
            while body.count % 4 != 0 { body.append(0) }
        }
        var header = [UInt8](repeating: 0, count: 128)
        let fields: [(Int, [UInt8])] = [
            (0, u32(UInt32(128 + table.count + body.count))), (8, [0x02, 0x10, 0, 0]), (12, Array("mntr".utf8)),
            (16, Array("RGB ".utf8)), (20, Array("XYZ ".utf8)), (24, [0x07, 0xE8, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]),
            (36, Array("acsp".utf8)), (68, s15(0.9642) + s15(1.0) + s15(0.8249)),
        ]
        for (offset, bytes) in fields { header.replaceSubrange(offset..<(offset + bytes.count), with: bytes) }
        return Data(header + table + body)
    }

    /// Converts a file with the `vips` tool (format chosen by the target's extension), with no metadata.
    static func convert(_ data: Data, to name: String, in dir: TempDir, sourceName: String = "source.jpg") throws -> Data {
        let source = dir.file(sourceName)
        try data.write(to: source)
        // libvips adds an EXIF block when it saves unless told to strip.
        try run("vips", ["copy", source.path, dir.file(name).path + "[strip]"])
        if name.hasSuffix(".webp") {  // libvips 8.14 keeps EXIF in WebP even with strip
            try run("exiftool", ["-q", "-overwrite_original", "-all=", dir.file(name).path])
        }
        return try Data(contentsOf: dir.file(name))
    }

    /// Adds metadata with exiftool and returns the new bytes.
    static func exiftool(_ data: Data, _ arguments: [String], in dir: TempDir, name: String = "tagged.jpg") throws -> Data {
        let file = dir.file(name)
        try data.write(to: file)
        try run("exiftool", ["-q", "-overwrite_original"] + arguments + [file.path])
        return try Data(contentsOf: file)
    }

    /// The exiftool groups (family 1) of everything in the file beyond Cairn's allow-list (a JFIF header),
    /// as the shared exiftool probe maps them; empty for a clean file.
    static func metadataGroups(_ data: Data, in dir: TempDir) throws -> [String] {
        let file = dir.file("inspect-\(UUID().uuidString).jpg")
        try data.write(to: file)
        return Set(try ExiftoolProbe.violations(at: file).map(\.group1)).sorted()
    }

    /// The largest resident set the process has had, in bytes (VmHWM).
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return kilobytes * 1024
    }

    /// Mean absolute difference per channel between two pictures of the same size.
    static func meanDifference(_ a: RGBImage, _ b: RGBImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        for i in 0..<a.pixels.count { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(total) / Double(a.pixels.count)
    }
}
