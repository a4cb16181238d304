import CairnCore
import Foundation

/// TEMPORARY test support until the Imaging adapter is merged: decodes a photo from ../shared/data/faces
/// with the `vips` command-line tool into a binary PPM in a temp dir, then reads it. The integrator swaps
/// this for Imaging.decodeRGB.
enum TestPhotos {
    static let facesDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/data/faces").standardizedFileURL

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func load(_ name: String) throws -> RGBImage {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-landmarks-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("photo.ppm")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["copy", facesDirectory.appendingPathComponent(name).path, out.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "vips could not convert \(name)") }
        return try readPPM(Data(contentsOf: out))
    }

    static func readPPM(_ data: Data) throws -> RGBImage {
        var fields: [String] = []
        var index = data.startIndex
        while fields.count < 4, index < data.endIndex {
            let byte = data[index]
            if byte == UInt8(ascii: "#") {
                while index < data.endIndex, data[index] != 0x0A { index += 1 }
            } else if [0x20, 0x0A, 0x0D, 0x09].contains(byte) {
                index += 1
            } else {
                var token = ""
                while index < data.endIndex, ![0x20, 0x0A, 0x0D, 0x09].contains(data[index]) {
                    token.append(Character(UnicodeScalar(data[index]))); index += 1
                }
                fields.append(token)
            }
        }
        index += 1
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255",
              data.endIndex - index >= w * h * 3 else { throw Failure(description: "not an 8-bit P6 PPM") }
        return RGBImage(width: w, height: h, pixels: [UInt8](data[index ..< index + w * h * 3]))
    }
}
