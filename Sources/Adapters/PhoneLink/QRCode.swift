internal import CQREncode
import Foundation

/// A QR code's module grid from libqrencode (error correction level M, 8-bit mode), and two drawings of it made
/// here: an SVG for the computer's page and half-block characters for a terminal. libqrencode gives only the grid.
public struct QRCode: Sendable, Equatable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let size: Int
    /// Row after row, true for a dark module.
    public let modules: [Bool]

    /// Light modules drawn around the code, as the standard asks (4).
    public static let quietZone = 4

    /// The code of `text` (its UTF-8 bytes). Throws `PhoneLinkError.qrCode` when libqrencode cannot encode it.
    public init(encoding text: String) throws {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { throw PhoneLinkError.qrCode }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // The lowest bit of each byte is the module's colour (qrencode.h); the others say what part it is.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark; false outside the grid (the quiet zone).
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// An SVG of the code with its quiet zone, one unit per module (the page sizes it), dark on light. `label` is
    /// its text alternative (`role="img"` with `aria-label`); it must already be safe in an attribute.
    public func svg(label: String) -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                var run = 1
                while isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + Self.quietZone) \(y + Self.quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" role="img" aria-label="\(label)" \
            shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(path)"/></svg>
            """
    }

    /// The code for a terminal: two rows of modules per line of half blocks (▀ ▄ █ and space), with a quiet zone of
    /// `quietZone` modules. Light modules are drawn as ink, so the code reads on the usual dark terminal; phone
    /// cameras read it either way round.
    public func terminalText(quietZone: Int = 2) -> String {
        let first = -quietZone
        let last = size + quietZone
        var lines: [String] = []
        var y = first
        while y < last {
            var line = ""
            for x in first..<last {
                let top = !isDark(x: x, y: y)
                let bottom = y + 1 < last ? !isDark(x: x, y: y + 1) : false
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
