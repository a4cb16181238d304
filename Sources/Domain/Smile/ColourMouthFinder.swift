import CairnCore
import Foundation

/// Step 3 of the cascade: finds a mouth by colour alone, for close-ups where no face can be found.
///
/// Works in CIE Lab on a small copy (blurry, low-resolution close-ups lose nothing at that size), against the
/// photo's own skin: skin is estimated as the median of the warm pixels (fewer than `minimumSkinShare` of
/// them: no mouth is reported), with its spread (median absolute
/// deviation). Three per-pixel cues, each in units of that spread and capped: teeth (brighter than the skin
/// and less colourful), the dark mouth opening and lip shadow (darker than the skin), lips (redder, higher
/// a*). A mouth is surrounded by skin, so cues count only where skin-coloured pixels make up most of a
/// neighbourhood (hair, clothing and background drop out). The cue map is averaged over a wide, flat window
/// (a mouth is a horizontal feature); the best window, weighted mildly toward the centre and away from the
/// edges, gives the mouth's centre row. Its width is the stretch of that row whose cue stays above the row's
/// median plus a tenth of the local peak (the best-scoring segment through the centre, so one faint pixel does
/// not cut it short); its height, the rows around the centre keeping 35% of the centre's cue.
///
/// Thresholds were tuned on the close-ups the bench makes from the training half of the annotated faces (see
/// `cairn-bench smile`). It needs colour: the cascade never runs it on grayscale photos.
public struct ColourMouthFinder: Sendable, Equatable {
    /// The analysis copy's longer side in pixels.
    public var workingLongSide = 96
    /// Regions scoring below this (0-1) are not reported.
    public var minimumConfidence = 0.2
    /// Smallest share of skin-coloured pixels in the photo: a close-up of a mouth is mostly skin.
    public var minimumSkinShare = 0.3

    /// The default settings.
    public init() {}

    /// A mouth found by colour.
    public struct Finding: Sendable, Equatable {
        /// The mouth's bounding box (lip corner to lip corner), in the searched image's pixels.
        public var mouthBounds: PixelRect
        /// How mouth-like the region is, 0-1.
        public var confidence: Double
    }

    /// The most mouth-like region in `image`, or `nil` when nothing scores high enough.
    public func find(in image: RGBImage) -> Finding? {
        let (small, scale) = Sampling.downscaled(image, longSide: workingLongSide)
        let w = small.width
        let h = small.height
        let n = w * h
        guard w >= 8, h >= 8 else { return nil }
        var lab = [Float](repeating: 0, count: n * 3)
        Self.toLab(small, into: &lab)
        var chroma = [Float](repeating: 0, count: n)
        for i in 0..<n { chroma[i] = (lab[i * 3 + 1] * lab[i * 3 + 1] + lab[i * 3 + 2] * lab[i * 3 + 2]).squareRoot() }

        // The skin: warm pixels (a* and b* positive, not black). A mouth close-up is mostly skin: with too
        // few warm pixels there is nothing to measure lips and teeth against.
        let warm = (0..<n).filter { lab[$0 * 3 + 1] > 2 && lab[$0 * 3 + 2] > 4 && lab[$0 * 3] > 15 }
        guard Double(warm.count) >= minimumSkinShare * Double(n) else { return nil }
        let skinL = Self.median(warm.map { lab[$0 * 3] })
        let skinA = Self.median(warm.map { lab[$0 * 3 + 1] })
        let skinC = Self.median(warm.map { chroma[$0] })
        let spreadL = max(3, 1.48 * Self.median(warm.map { abs(lab[$0 * 3] - skinL) }))
        let spreadA = max(2, 1.48 * Self.median(warm.map { abs(lab[$0 * 3 + 1] - skinA) }))

        var cue = [Double](repeating: 0, count: n)
        var skinLike = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let l = lab[i * 3]
            let a = lab[i * 3 + 1]
            let c = chroma[i]
            let bright = min(3, max(0, (l - skinL) / spreadL))
            let pale = min(1, max(0, (skinC - c) / max(skinC, 1)))
            let dark = l > 3 ? min(3, max(0, (skinL - l) / spreadL - 1)) : 0
            let red = min(3, max(0, (a - skinA) / spreadA - 0.5))
            cue[i] = Double(bright * pale + 0.7 * dark + 0.7 * red)
            if abs(a - skinA) < 2.5 * spreadA && abs(l - skinL) < 2.5 * spreadL && c > 0.5 * skinC { skinLike[i] = 1 }
        }
        let skinShare = skinLike.reduce(0, +) / Double(n)
        guard skinShare >= minimumSkinShare else { return nil }
        let reach = max(1, Int(0.15 * Double(w)))
        let skinAround = BoxMean(skinLike, width: w, height: h).map(radiusY: reach, radiusX: reach)
        for i in 0..<n where skinAround[i] <= 0.5 { cue[i] = 0 }
        let cues = BoxMean(cue, width: w, height: h)

        // The best wide, flat window.
        let rx = max(1, Int(0.12 * Double(w)))
        let ry = max(1, Int(0.03 * Double(w)))
        let windows = cues.map(radiusY: ry, radiusX: rx)
        var bestIndex = -1
        var bestScore = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let dx = Double(x) / Double(w) - 0.5
                let dy = Double(y) / Double(h) - 0.5
                let centre = 1 - (dx * dx + dy * dy).squareRoot() / 0.7071
                let edge = min(Double(min(x, w - 1 - x)) / Double(w), Double(min(y, h - 1 - y)) / Double(h))
                let score = windows[i] * (0.5 + 0.5 * centre) * min(1, max(0.2, edge / 0.1)) * skinAround[i] * skinAround[i]
                if score > bestScore {
                    bestScore = score
                    bestIndex = i
                }
            }
        }
        guard bestIndex >= 0 else { return nil }
        let peak = windows[bestIndex]
        let cx = bestIndex % w
        let cy = bestIndex / w
        let confidence = min(1, peak / 1.5)
        guard confidence >= minimumConfidence else { return nil }

        // Width: the best-scoring stretch of the centre row through the centre.
        let row = (0..<w).map { cues.mean(x0: $0 - 1, x1: $0 + 1, y0: cy - ry, y1: cy + ry) }
        let rowMedian = Self.median(row.map { Float($0) })
        let localPeak = row[max(0, cx - rx)...min(w - 1, cx + rx)].max() ?? 0
        let level = Double(rowMedian) + 0.1 * (localPeak - Double(rowMedian))
        var left = cx
        var right = cx
        var total = 0.0
        var best = -Double.infinity
        for x in stride(from: cx, through: 0, by: -1) {
            total += row[x] - level
            if total > best {
                best = total
                left = x
            }
        }
        total = 0
        best = -Double.infinity
        for x in cx..<w {
            total += row[x] - level
            if total > best {
                best = total
                right = x
            }
        }
        guard Double(right - left + 1) >= 0.08 * Double(w), Double(right - left + 1) <= 0.9 * Double(w) else { return nil }
        // Height: rows around the centre keeping 35% of its cue.
        let half = max(1, (right - left) / 4)
        let column = (0..<h).map { cues.mean(x0: cx - half, x1: cx + half, y0: $0 - 1, y1: $0 + 1) }
        var top = cy
        var bottom = cy
        if column[cy] > 0 {
            while top > 0 && column[top - 1] >= 0.35 * column[cy] { top -= 1 }
            while bottom < h - 1 && column[bottom + 1] >= 0.35 * column[cy] { bottom += 1 }
        } else {
            top = max(0, cy - ry)
            bottom = min(h - 1, cy + ry)
        }
        let bounds = PixelRect(
            x: Double(left), y: Double(top), width: Double(right - left + 1),
            height: Double(bottom - top + 1)
        ).scaled(by: scale)
        return Finding(mouthBounds: bounds, confidence: confidence)
    }

    static func median(_ values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// sRGB (D65) to CIE Lab.
    static func toLab(_ image: RGBImage, into lab: inout [Float]) {
        var linear = [Float](repeating: 0, count: 256)
        for v in 0..<256 {
            let c = Double(v) / 255
            linear[v] = Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
        }
        func f(_ t: Float) -> Float { t > 0.008856 ? cbrtf(t) : 7.787 * t + 16 / 116 }
        let n = image.width * image.height
        for i in 0..<n {
            let r = linear[Int(image.pixels[i * 3])]
            let g = linear[Int(image.pixels[i * 3 + 1])]
            let b = linear[Int(image.pixels[i * 3 + 2])]
            let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
            let fx = f(x)
            let fy = f(y)
            let fz = f(z)
            lab[i * 3] = 116 * fy - 16
            lab[i * 3 + 1] = 500 * (fx - fy)
            lab[i * 3 + 2] = 200 * (fy - fz)
        }
    }
}

/// Means over axis-aligned windows of a `width` x `height` grid, from a summed-area table; windows are clipped
/// to the grid (edge pixels average over what is inside).
struct BoxMean {
    let width: Int, height: Int
    private var table: [Double]

    init(_ values: [Double], width: Int, height: Int) {
        self.width = width
        self.height = height
        table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var rowSum = 0.0
            for x in 0..<width {
                rowSum += values[y * width + x]
                table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + rowSum
            }
        }
    }

    /// The mean over columns `x0...x1` and rows `y0...y1` (inclusive), clipped to the grid.
    func mean(x0: Int, x1: Int, y0: Int, y1: Int) -> Double {
        let l = max(0, x0)
        let r = min(width, x1 + 1)
        let t = max(0, y0)
        let b = min(height, y1 + 1)
        guard r > l, b > t else { return 0 }
        let w1 = width + 1
        let sum = table[b * w1 + r] - table[t * w1 + r] - table[b * w1 + l] + table[t * w1 + l]
        return sum / Double((r - l) * (b - t))
    }

    /// Every pixel's window mean, the window reaching `radiusX` and `radiusY` pixels each way.
    func map(radiusY: Int, radiusX: Int) -> [Double] {
        var out = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                out[y * width + x] = mean(x0: x - radiusX, x1: x + radiusX, y0: y - radiusY, y1: y + radiusY)
            }
        }
        return out
    }
}
