import CairnCore
import Foundation
import Imaging
import CairnTestSupport

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
                    pixels[i] = 220; pixels[i + 1] = 20; pixels[i + 2] = 20
                } else if y >= height - height / 4 {
                    pixels[i] = 20; pixels[i + 1] = 200; pixels[i + 2] = 20
                } else {
                    pixels[i] = 20; pixels[i + 1] = 20; pixels[i + 2] = 220
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
        let w = image.height, h = image.width
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                // Output (x, y) shows source column (width - 1 - y), row x.
                let p = image.pixel(x: image.width - 1 - y, y: x)
                let i = (y * w + x) * 3
                out[i] = p.r; out[i + 1] = p.g; out[i + 2] = p.b
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
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
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
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
