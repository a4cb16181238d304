import CairnCore
import Foundation
import Imaging

/// Test material made on the fly: synthetic pictures, files converted by the `vips` and `exiftool` tools.
enum Fixtures {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sharedData = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

    /// True once the PhotoMetadata module has its real implementation (this branch carries placeholders that
    /// trap). Tests whose images carry EXIF are enabled by it, so they run after the integrator's merge.
    static let photoMetadataImplemented: Bool = {
        let source = repoRoot.appendingPathComponent("Sources/PhotoMetadata/ExifReader.swift")
        guard let text = try? String(contentsOf: source, encoding: .utf8) else { return false }
        return !text.contains("not implemented yet")
    }()

    /// A temporary directory removed by `cleanup`.
    final class TempDir {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-imaging-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func file(_ name: String) -> URL { url.appendingPathComponent(name) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    struct ToolFailed: Error { let tool: String; let output: String }

    /// Runs a tool; throws with its output when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        // Output goes through a file: reading a Pipe can trap on EINTR in Foundation on Linux.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-tool-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let handle = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = try Data(contentsOf: outputURL)
        guard process.terminationStatus == 0 else {
            throw ToolFailed(tool: tool, output: String(decoding: output, as: UTF8.self))
        }
        return output
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

    /// The metadata groups exiftool finds in a file, beyond the file's own structure and a JFIF header.
    static func metadataGroups(_ data: Data, in dir: TempDir) throws -> [String] {
        let file = dir.file("inspect-\(UUID().uuidString).jpg")
        try data.write(to: file)
        let json = try run("exiftool", ["-a", "-G1", "-j", file.path])
        guard let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]], let tags = list.first else {
            return ["unreadable"]
        }
        let structural: Set<String> = ["ExifTool", "System", "File", "JFIF", "Composite"]
        return Set(tags.keys.filter { $0 != "SourceFile" }.compactMap { key -> String? in
            let group = String(key.split(separator: ":").first ?? "")
            return structural.contains(group) ? nil : group
        }).sorted()
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
