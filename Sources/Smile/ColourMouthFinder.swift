import CairnCore
import Foundation

/// Step 3 of the cascade: finds a mouth by colour alone, for close-ups where no face can be found.
///
/// Works in CIE Lab on a small copy: lips are pixels shifted toward red (a* well above the photo's median,
/// which is mostly skin); teeth are bright and nearly colourless (high L*, low chroma). Lip and teeth pixels
/// are grouped into connected regions, regions stacked like an upper and a lower lip are merged, and each
/// group is scored for how mouth-like it is: lips present, a mouth's width-to-height ratio, a plausible share
/// of the frame, redness against the skin, teeth inside the lips, near the centre. It needs colour: the
/// cascade never runs it on grayscale photos.
public struct ColourMouthFinder: Sendable, Equatable {
    /// The analysis copy's longer side in pixels.
    public var workingLongSide = 320
    /// Share of pixels (the highest on the mouth map) taken as lip candidates.
    public var lipShare = 0.90
    /// Groups scoring below this (0-1) are not reported.
    public var minimumConfidence = 0.25

    /// The default settings.
    public init() {}

    /// A mouth found by colour.
    public struct Finding: Sendable, Equatable {
        /// The lips' (and teeth's) bounding box, in the searched image's pixels.
        public var mouthBounds: PixelRect
        /// How mouth-like the region is, 0-1.
        public var confidence: Double
    }

    /// The most mouth-like region in `image`, or `nil` when nothing scores high enough.
    public func find(in image: RGBImage) -> Finding? {
        let (small, scale) = Sampling.downscaled(image, longSide: workingLongSide)
        let w = small.width, h = small.height, n = w * h
        guard w >= 8, h >= 8 else { return nil }
        var lab = [Float](repeating: 0, count: n * 3)
        Self.toLab(small, into: &lab)

        var aValues = [Float](repeating: 0, count: n), lValues = [Float](repeating: 0, count: n)
        for i in 0..<n { lValues[i] = lab[i * 3]; aValues[i] = lab[i * 3 + 1] }
        let medianA = Self.percentile(aValues, 0.5)
        let brightL = Self.percentile(lValues, 0.9)
        let medianL = Self.percentile(lValues, 0.5)
        let map = Self.mouthMap(small)
        let teethThreshold = max(55, brightL - 10)
        let lipThreshold = Self.percentile(map, lipShare)

        // 1 = lip (high on the mouth map, redder and darker than the median, which is mostly skin; a red nose
        // tip or cheek is as bright as the skin), 2 = teeth.
        var kind = [UInt8](repeating: 0, count: n)
        for i in 0..<n {
            let l = lab[i * 3], a = lab[i * 3 + 1], b = lab[i * 3 + 2]
            if map[i] >= lipThreshold && map[i] > 0 && a > medianA + 2 && l > 12 && l < medianL {
                kind[i] = 1
            } else if l >= teethThreshold && (a * a + b * b).squareRoot() <= 15 {
                kind[i] = 2
            }
        }
        // Regions grow from lip pixels only: pale skin and white backgrounds look like teeth, so teeth only
        // count as evidence inside a lip group's box.
        let closed = Self.dilated(kind.map { $0 == 1 ? 1 : 0 }, width: w, height: h, radius: max(1, max(w, h) / 160))
        let regions = Self.regions(mask: closed, kind: kind, lab: lab, width: w, height: h)
            .filter { $0.count * 500 >= n }
        guard !regions.isEmpty else { return nil }
        // Score single regions and merged stacks alike: a nostril above the lips must not spoil the lips.
        let groups = (regions + Self.merged(regions)).map { Self.withTeeth($0, kind: kind, width: w) }

        var best: (Region, Double)?
        for g in groups {
            let score = Self.score(g, width: w, height: h, medianA: medianA)
            if score > (best?.1 ?? 0) { best = (g, score) }
        }
        guard let (region, confidence) = best, confidence >= minimumConfidence else { return nil }
        let bounds = PixelRect(x: Double(region.minX), y: Double(region.minY),
                               width: Double(region.maxX - region.minX + 1),
                               height: Double(region.maxY - region.minY + 1)).scaled(by: scale)
        return Finding(mouthBounds: bounds, confidence: confidence)
    }

    struct Region {
        var minX: Int, minY: Int, maxX: Int, maxY: Int
        var count = 0, lips = 0, teeth = 0
        var lipA: Double = 0
        var teethX: Double = 0, teethY: Double = 0
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }

        mutating func absorb(_ o: Region) {
            minX = min(minX, o.minX); minY = min(minY, o.minY); maxX = max(maxX, o.maxX); maxY = max(maxY, o.maxY)
            count += o.count; lips += o.lips; teeth += o.teeth; lipA += o.lipA; teethX += o.teethX; teethY += o.teethY
        }
    }

    static func score(_ r: Region, width: Int, height: Int, medianA: Float) -> Double {
        guard r.lips > 0, Double(r.lips) >= 0.25 * Double(r.count), r.lipA / Double(r.lips) - Double(medianA) >= 3 else { return 0 }
        let aspect = Double(r.width) / Double(r.height)
        let aspectScore: Double
        switch aspect {
        case 1.3...4.5: aspectScore = 1
        case 0.8..<1.3: aspectScore = 0.4 + 0.6 * (aspect - 0.8) / 0.5
        case 4.5..<7: aspectScore = 1 - (aspect - 4.5) / 2.5
        default: aspectScore = 0
        }
        let share = Double(r.width) / Double(width)
        let sizeScore: Double
        switch share {
        case 0.2...0.9: sizeScore = 1
        case 0.06..<0.2: sizeScore = (share - 0.06) / 0.14
        case 0.9...: sizeScore = 0.6
        default: sizeScore = 0
        }
        let cx = Double(r.minX + r.maxX) / 2 / Double(width) - 0.5
        let cy = Double(r.minY + r.maxY) / 2 / Double(height) - 0.5
        let centreScore = 1 - min(1, (cx * cx + cy * cy).squareRoot() / 0.7071)
        let contrast = min(1, max(0, (r.lipA / Double(r.lips) - Double(medianA)) / 15))
        let fill = min(1, Double(r.count) / Double(r.width * r.height) / 0.35)
        var teethBonus = 0.0
        if r.teeth * 10 >= r.lips {
            let tx = r.teethX / Double(r.teeth), ty = r.teethY / Double(r.teeth)
            let inside = tx > Double(r.minX) + 0.15 * Double(r.width) && tx < Double(r.maxX) - 0.15 * Double(r.width)
                && ty > Double(r.minY) && ty < Double(r.maxY)
            if inside { teethBonus = 0.15 }
        }
        // A mouth in a close-up rarely runs off the frame; clothing and background often do.
        var borderScore = 1.0
        if r.minX == 0 { borderScore *= 0.6 }
        if r.maxX == width - 1 { borderScore *= 0.6 }
        if r.maxY == height - 1 { borderScore *= 0.5 }
        if r.minY == 0 { borderScore *= 0.7 }
        let base = borderScore * aspectScore * sizeScore * (0.5 + 0.5 * centreScore) * (0.5 + 0.5 * contrast) * (0.6 + 0.4 * fill)
        return min(1, base + (base > 0 ? teethBonus : 0))
    }

    /// `r` with the teeth pixels inside its box counted.
    static func withTeeth(_ r: Region, kind: [UInt8], width w: Int) -> Region {
        var out = r
        out.teeth = 0; out.teethX = 0; out.teethY = 0
        for y in r.minY...r.maxY {
            for x in r.minX...r.maxX where kind[y * w + x] == 2 {
                out.teeth += 1; out.teethX += Double(x); out.teethY += Double(y)
            }
        }
        return out
    }

    /// Merges regions stacked like an upper and a lower lip (overlapping by at least half of the narrower one
    /// horizontally, vertical gap under 0.3 of the wider one's width) or side by side like the two halves of
    /// a smile around teeth (overlapping by half the lower one vertically, gap under 0.3 of the wider one's
    /// width), as long as the group stays wider than tall.
    static func merged(_ input: [Region]) -> [Region] {
        var groups = input
        var changed = true
        while changed {
            changed = false
            outer: for i in 0..<groups.count {
                for j in (i + 1)..<groups.count {
                    let a = groups[i], b = groups[j]
                    let overlap = min(a.maxX, b.maxX) - max(a.minX, b.minX) + 1
                    let gap = max(a.minY, b.minY) - min(a.maxY, b.maxY) - 1
                    var joined = a
                    joined.absorb(b)
                    let stacked = Double(overlap) >= 0.5 * Double(min(a.width, b.width))
                        && Double(gap) <= 0.3 * Double(max(a.width, b.width))
                    let rowOverlap = min(a.maxY, b.maxY) - max(a.minY, b.minY) + 1
                    let columnGap = max(a.minX, b.minX) - min(a.maxX, b.maxX) - 1
                    let sideBySide = Double(rowOverlap) >= 0.5 * Double(min(a.height, b.height))
                        && Double(columnGap) <= 0.3 * Double(max(a.width, b.width))
                    if (stacked || sideBySide) && joined.width * 10 >= joined.height * 11 {
                        groups[i].absorb(b)
                        groups.remove(at: j)
                        changed = true
                        break outer
                    }
                }
            }
        }
        return groups
    }

    static func regions(mask: [Bool], kind: [UInt8], lab: [Float], width w: Int, height h: Int) -> [Region] {
        var label = [Int32](repeating: -1, count: w * h)
        var result: [Region] = []
        var stack: [Int] = []
        for start in 0..<(w * h) where mask[start] && label[start] < 0 {
            let id = Int32(result.count)
            var r = Region(minX: start % w, minY: start / w, maxX: start % w, maxY: start / w)
            label[start] = id
            stack.append(start)
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                r.minX = min(r.minX, x); r.maxX = max(r.maxX, x); r.minY = min(r.minY, y); r.maxY = max(r.maxY, y)
                if kind[i] == 1 { r.lips += 1; r.count += 1; r.lipA += Double(lab[i * 3 + 1]) }
                if x > 0, mask[i - 1], label[i - 1] < 0 { label[i - 1] = id; stack.append(i - 1) }
                if x < w - 1, mask[i + 1], label[i + 1] < 0 { label[i + 1] = id; stack.append(i + 1) }
                if y > 0, mask[i - w], label[i - w] < 0 { label[i - w] = id; stack.append(i - w) }
                if y < h - 1, mask[i + w], label[i + w] < 0 { label[i + w] = id; stack.append(i + w) }
            }
            result.append(r)
        }
        return result
    }

    static func dilated(_ kind: [UInt8], width w: Int, height h: Int, radius: Int) -> [Bool] {
        // Separable square dilation: rows, then columns.
        var rows = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w where kind[y * w + x] != 0 {
                for dx in max(0, x - radius)...min(w - 1, x + radius) { rows[y * w + dx] = true }
            }
        }
        var out = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w where rows[y * w + x] {
                for dy in max(0, y - radius)...min(h - 1, y + radius) { out[dy * w + x] = true }
            }
        }
        return out
    }

    static func percentile(_ values: [Float], _ q: Double) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
    }

    /// The "mouth map" of Hsu, Abdel-Mottaleb and Jain (2002) in YCbCr: Cr^2 * (Cr^2 - eta * Cr/Cb)^2, with
    /// both terms scaled to 0-1 and eta = 0.95 * mean(Cr^2) / mean(Cr/Cb). Lips have strong Cr and weak Cb,
    /// so they stand out from skin.
    static func mouthMap(_ image: RGBImage) -> [Float] {
        let n = image.width * image.height
        var cr2 = [Float](repeating: 0, count: n), ratio = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let r = Float(image.pixels[i * 3]), g = Float(image.pixels[i * 3 + 1]), b = Float(image.pixels[i * 3 + 2])
            let cr = 128 + 0.5 * r - 0.4187 * g - 0.0813 * b
            let cb = max(1, 128 - 0.1687 * r - 0.3313 * g + 0.5 * b)
            cr2[i] = cr * cr
            ratio[i] = cr / cb
        }
        let maxCr2 = max(cr2.max() ?? 1, 1), maxRatio = max(ratio.max() ?? 1, 1e-6)
        var sumCr2: Float = 0, sumRatio: Float = 0
        for i in 0..<n {
            cr2[i] /= maxCr2; ratio[i] /= maxRatio
            sumCr2 += cr2[i]; sumRatio += ratio[i]
        }
        let eta = sumRatio > 0 ? 0.95 * sumCr2 / sumRatio : 0
        var map = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let d = cr2[i] - eta * ratio[i]
            map[i] = cr2[i] * d * d
        }
        return map
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
            let r = linear[Int(image.pixels[i * 3])], g = linear[Int(image.pixels[i * 3 + 1])], b = linear[Int(image.pixels[i * 3 + 2])]
            let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
            let fx = f(x), fy = f(y), fz = f(z)
            lab[i * 3] = 116 * fy - 16
            lab[i * 3 + 1] = 500 * (fx - fy)
            lab[i * 3 + 2] = 200 * (fy - fz)
        }
    }
}
