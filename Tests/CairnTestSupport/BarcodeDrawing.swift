import Foundation

/// EAN-13 bars drawn from GS1's tables, for barcode tests and the benchmark (no real product photos are needed):
/// a grey picture with the symbol where asked, on a plain or speckled background.
public enum BarcodeDrawing {
    private static let left = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
    private static let even = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111"]
    private static let right = ["1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000", "1110100"]
    private static let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]

    /// The 95 modules (true = a bar) of the EAN-13 `digits` (13 digits, the last the check digit).
    public static func modules(ean13 digits: String) -> [Bool] {
        let d = digits.compactMap(\.wholeNumberValue)
        precondition(d.count == 13, "13 digits")
        var bits = "101"
        let pattern = Array(parity[d[0]])
        for i in 1...6 { bits += pattern[i - 1] == "L" ? left[d[i]] : even[d[i]] }
        bits += "01010"
        for i in 7...12 { bits += right[d[i]] }
        bits += "101"
        return bits.map { $0 == "1" }
    }

    /// A `width` x `height` grey picture (row after row) with the EAN-13 symbol drawn at (`x`, `y`), each module
    /// `moduleWidth` pixels wide and the bars `barHeight` tall; the background is light grey with a little noise.
    public static func grey(
        ean13 digits: String, width: Int, height: Int, x: Int, y: Int, moduleWidth: Int, barHeight: Int, seed: UInt64 = 1
    ) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        var state = seed | 1
        for i in 0..<pixels.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[i] = UInt8(200 + Int(state >> 60))
        }
        // The quiet zone and the symbol's white, then the bars.
        let bars = modules(ean13: digits)
        let quiet = 11 * moduleWidth
        for row in max(0, y - moduleWidth * 4)..<min(height, y + barHeight + moduleWidth * 4) {
            for column in max(0, x - quiet)..<min(width, x + bars.count * moduleWidth + quiet) { pixels[row * width + column] = 250 }
        }
        for (index, bar) in bars.enumerated() where bar {
            for row in y..<min(height, y + barHeight) {
                let start = x + index * moduleWidth
                for column in start..<min(width, start + moduleWidth) { pixels[row * width + column] = 20 }
            }
        }
        return pixels
    }

    /// The same picture in RGB (each grey value three times).
    public static func rgb(
        ean13 digits: String, width: Int, height: Int, x: Int, y: Int, moduleWidth: Int, barHeight: Int, seed: UInt64 = 1
    ) -> [UInt8] {
        grey(ean13: digits, width: width, height: height, x: x, y: y, moduleWidth: moduleWidth, barHeight: barHeight, seed: seed)
            .flatMap { [$0, $0, $0] }
    }
}
