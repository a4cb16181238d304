import Foundation
import Testing

@testable import PhoneLink

@Suite struct QRCodeTests {
    @Test func theGridHasFinderPatternsAndBothDrawingsFollowIt() throws {
        let code = try QRCode(encoding: "https://127.0.0.2:8738/pair#0123456789abcdefghijklmnopqrstuvwxyzABCDEFG")
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0)
        // The top-left finder pattern: a dark 7x7 ring, a light ring inside, a dark 3x3 centre.
        #expect((0..<7).allSatisfy { code.isDark(x: $0, y: 0) && code.isDark(x: 0, y: $0) })
        #expect(!code.isDark(x: 1, y: 1) && code.isDark(x: 3, y: 3) && !code.isDark(x: 7, y: 0))
        let svg = code.svg(label: "QR code")
        #expect(svg.hasPrefix("<svg") && svg.contains("role=\"img\"") && svg.contains("aria-label=\"QR code\""))
        #expect(svg.contains("viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        #expect(svg.contains("M4 4h7v1h-7z"), "the finder's top row as one run")
        let lines = code.terminalText(quietZone: 2).split(separator: "\n")
        #expect(lines.count == (code.size + 5) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        // Light modules are the ink: the quiet zone's rows are full blocks; the finder's left column (dark in rows 0
        // and 1) is blank, and beside it row 0's dark edge over row 1's light ring is a lower half block.
        #expect(lines[0].allSatisfy { $0 == "█" })
        #expect(Array(lines[1])[2] == " " && Array(lines[1])[3] == "▄")
    }

    /// The grid read back by a QR decoder (zbar's `zbarimg`, as a phone's camera app would), from an image drawn
    /// module by module at 8 pixels each with the quiet zone: the pairing address comes back exactly.
    @Test func aDecoderReadsThePairingAddressBackFromTheGrid() throws {
        let address = "https://192.168.1.20:8738/pair#rrjTsivVEsBRvIMVdxxJNWpVOWPJd-BedRu_6YNSb9Q"
        let code = try QRCode(encoding: address)
        let scale = 8
        let side = (code.size + 2 * QRCode.quietZone) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<code.size {
            for x in 0..<code.size where code.isDark(x: x, y: y) {
                for dy in 0..<scale {
                    let row = ((y + QRCode.quietZone) * scale + dy) * side
                    for dx in 0..<scale { pixels[row + (x + QRCode.quietZone) * scale + dx] = 0 }
                }
            }
        }
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-qr-\(UUID().uuidString).pgm")
        defer { try? FileManager.default.removeItem(at: image) }
        try (Data("P5\n\(side) \(side)\n255\n".utf8) + Data(pixels)).write(to: image)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["-q", "--raw", image.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == address)
    }
}
