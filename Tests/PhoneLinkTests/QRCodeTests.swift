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
}
