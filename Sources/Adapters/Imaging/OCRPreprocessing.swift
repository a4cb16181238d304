import CairnCore
import Foundation
import Synchronization
internal import VipsShim

/// An 8-bit grayscale image prepared for OCR, with how it relates to the photo it came from.
public struct OCRImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// One byte per pixel, row-major, 0 = black.
    public let pixels: [UInt8]
    /// Size of this image relative to the upright photo (2 = enlarged twice).
    public let scale: Double
    /// The rotation applied to straighten the text, in degrees (libvips convention); 0 when none.
    public let deskewDegrees: Double
    /// The bow taken out of curved text lines before the rotation, in upright-photo pixels (`OCRPreprocessing.bow`):
    /// the preprocessed column at `u` (-1 at the left edge, 1 at the right) was moved up by `bow * u * u`. 0 when
    /// the lines were straight.
    public let bow: Double
    /// True when the photo was turned by 180 degrees before reading.
    public let turnedHalf: Bool
    /// The upright photo's size.
    public let sourceWidth: Int
    /// The upright photo's size.
    public let sourceHeight: Int
    /// The panel the image was cropped to (in pixels of the photo as read, i.e. turned when `turnedHalf`), nil
    /// when the whole photo was read.
    public var panel: OCRPanelCrop? = nil
    /// Runs of dot leaders ("Vitamin A 1050 mcg........ 117%") erased before reading (`OCRPreprocessing.eraseDotLeaders`).
    public var dotLeaderRuns = 0
    /// True when the panel was cut from the photo at full resolution (the photo was larger than
    /// `OCRPreprocessing.maxSourceSide`; the panel was found on a shrunk copy).
    public var fullResolution = false
}

/// The part of a photo read as the label's panel: its box, and the text seen outside it (not read).
public struct OCRPanelCrop: Sendable, Hashable, Codable {
    /// The box's left edge.
    public let x: Int
    /// The box's top edge.
    public let y: Int
    /// The box's width.
    public let width: Int
    /// The box's height.
    public let height: Int
    /// Lines of text seen outside the panel (dark on light or light on dark), which were not read: text on the
    /// bottle, or a part of the panel the box left out.
    public let linesOutside: Int

    /// A crop.
    public init(x: Int, y: Int, width: Int, height: Int, linesOutside: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.linesOutside = linesOutside
    }
}

/// Preprocessing for label OCR in libvips: grayscale, even light, contrast stretch, deskew, and enlarging small
/// text to the size Tesseract reads best. Everything happens in memory; nothing is written.
public enum OCRPreprocessing {
    /// The text-line height (pixels) the image is scaled towards: Tesseract reads best at 20-40 px lines.
    public static let targetLineHeight = 30.0
    /// The photo is shrunk on load so its longer side is at most this.
    public static let maxSourceSide = 3200
    /// Skew angles searched, in degrees either side of level.
    public static let maxSkewDegrees = 8.0

    /// Makes every later libvips evaluation in this process run on `count` worker threads, but the enlargement
    /// that ends `prepare` on `enlarging` (nil: `count` too). A process that reads one label photo (`cairn regimen
    /// scan`) takes 1 and 2: preparing the photo then takes one core and leaves the other to Tesseract's start,
    /// which it would otherwise slow down (both are on the way to the first word read), and the enlargement, the
    /// last step, comes as that start ends and takes both cores (label 2 of `cairn-bench labels`: ~8 ms of wall
    /// less). Only for a process that runs no other libvips work meanwhile: the setting is the process's.
    public static func useWorkerThreads(_ count: Int, whileEnlarging enlarging: Int? = nil) throws {
        try Vips.start()
        enlargingThreads.withLock { $0 = enlarging.map(Int32.init) }
        cairn_vips_set_concurrency(Int32(count))
    }

    /// The worker threads of `prepare`'s enlargement when they differ from the process's setting.
    private static let enlargingThreads = Mutex<Int32?>(nil)

    /// How many worker threads a libvips evaluation in this process uses now.
    public static var workerThreads: Int {
        get throws {
            try Vips.start()
            return Int(cairn_vips_concurrency())
        }
    }

    /// Prepares encoded image bytes (JPEG, PNG, WebP, HEIC) for OCR. `turnHalf` rotates by 180 degrees
    /// first (for a label photographed upside down). Throws `ImagingError` for unreadable input.
    ///
    /// A photo larger than `maxSourceSide` is shrunk to find the panel; the panel is then cut from the photo at
    /// full resolution (`decodeRGB(_:x:y:width:height:)`), so small type keeps every pixel it had, when that cut
    /// holds at most `maxPanelPixels` (else, or without a panel found, the shrunk photo is read as before).
    public static func prepare(_ data: Data, turnHalf: Bool = false, pipeline: ImagePipeline = ImagePipeline()) throws -> OCRImage {
        let rgb = try pipeline.decodeRGB(data, maxSide: maxSourceSide)
        let info = try pipeline.probe(data)
        guard !turnHalf, max(info.width, info.height) > max(rgb.width, rgb.height), let found = try panel(in: rgb) else {
            return try prepare(rgb, turnHalf: turnHalf)
        }
        // The panel's box (with a margin of 2% of its shorter side) in the photo's own pixels.
        let factor = Double(info.width) / Double(rgb.width)
        let margin = Double(min(found.width, found.height)) * 0.02
        let left = max(0, Int((Double(found.x) - margin) * factor))
        let top = max(0, Int((Double(found.y) - margin) * factor))
        let right = min(info.width, Int((Double(found.x + found.width) + margin) * factor))
        let bottom = min(info.height, Int((Double(found.y + found.height) + margin) * factor))
        guard right > left, bottom > top, (right - left) * (bottom - top) <= maxPanelPixels else { return try prepare(rgb, turnHalf: false) }
        let cut = try pipeline.decodeRGB(data, x: left, y: top, width: right - left, height: bottom - top)
        let read = try prepare(cut, turnHalf: false)
        // Back in the photo's frame: the panel found inside the cut (or the cut itself), moved by the cut's corner.
        let inner = read.panel ?? OCRPanelCrop(x: 0, y: 0, width: cut.width, height: cut.height, linesOutside: 0)
        return OCRImage(
            width: read.width, height: read.height, pixels: read.pixels, scale: read.scale, deskewDegrees: read.deskewDegrees,
            bow: read.bow, turnedHalf: false, sourceWidth: info.width, sourceHeight: info.height,
            panel: OCRPanelCrop(
                x: inner.x + left, y: inner.y + top, width: inner.width, height: inner.height, linesOutside: found.linesOutside),
            dotLeaderRuns: read.dotLeaderRuns, fullResolution: true)
    }

    /// The most pixels a panel is cut at full resolution with (the shrunk photo's own budget: 3200 x 2400).
    public static let maxPanelPixels = 3200 * 2400

    /// Prepares upright RGB pixels for OCR (see `prepare(_:turnHalf:pipeline:)`).
    public static func prepare(_ rgb: RGBImage, turnHalf: Bool = false) throws -> OCRImage {
        try Vips.start()
        let source = try VipsImageRef.fromRGB(rgb)
        var image = try withExtendedLifetime(source) { try VipsImageRef.wrap(cairn_ocr_gray(source.pointer), orThrow: .corrupt) }
        if turnHalf { image = try .wrap(cairn_ocr_rot180(image.pointer), orThrow: .corrupt) }
        // A dark or coloured surround (the bottle round the label): the photo is cropped to the panel (its light,
        // box-bounded region), and what is left of the surround in the box (the corners of a tilted panel) is
        // painted paper. Left in, the surround would drive the light flattening (its edge turns into a black frame
        // hugging the text) and be read as junk. Text seen outside the panel is counted, never silently lost.
        // (In memory: the panel search and the crop read it, and the cache is off.)
        image = try image.inMemory()
        var panel: OCRPanelCrop?
        if let found = try findPanel(image) {
            image = try withExtendedLifetime(found.surround) {
                try .wrap(
                    cairn_ocr_crop_panel(
                        image.pointer, Int32(found.crop.x), Int32(found.crop.y), Int32(found.crop.width),
                        Int32(found.crop.height), found.surround.pointer, Double(found.paper)), orThrow: .corrupt)
            }
            panel = found.crop
        }
        image = try .wrap(cairn_ocr_flatten_light(image.pointer, 16), orThrow: .corrupt)
        // One evaluation of the libvips pipeline (the operation cache is off: every read recomputes it).
        var width = image.width
        var height = image.height
        var gray = stretched(try image.memory(), low: 0.01, high: 0.995)
        let skew = estimateSkew(pixels: gray, width: width, height: height)
        let deskew = abs(skew) >= 0.3 ? -skew : 0
        var scale = 1.0
        var bowPixels = 0.0
        if let line = medianLineHeight(pixels: gray, width: width, height: height, skewDegrees: skew) {
            let wanted = targetLineHeight / line
            // Enlarge small text (up to 3x); shrink very large text (speed).
            if wanted > 1.2 { scale = min(wanted, 3) } else if wanted < 0.6 { scale = max(wanted, 0.3) }
            // Lines bowed by a round bottle: Tesseract follows a straight baseline, and splits a bowed row in two
            // (its name on one line, its amount on the next) once the bow nears half a line.
            let found = bow(pixels: gray, width: width, height: height, skewDegrees: skew, lineHeight: line)
            if abs(found) >= max(1.5, line * minimumBowShareOfLine) {
                bowPixels = found
                gray = unbowed(gray, width: width, height: height, bow: found)
            }
        }
        if deskew != 0 || scale != 1 {
            var next = try gray.withUnsafeBytes { raw in
                try VipsImageRef.wrap(cairn_ocr_gray_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height)), orThrow: .corrupt)
            }
            if deskew != 0 { next = try .wrap(cairn_ocr_rotate(next.pointer, deskew, 255), orThrow: .corrupt) }
            if scale != 1 { next = try .wrap(cairn_ocr_scale(next.pointer, scale), orThrow: .corrupt) }
            let threads = enlargingThreads.withLock { $0 }
            let before = cairn_vips_concurrency()
            if let threads { cairn_vips_set_concurrency(threads) }
            defer { if threads != nil { cairn_vips_set_concurrency(before) } }
            gray = try next.memory()
            width = next.width
            height = next.height
        }
        let lineHeight = medianLineHeight(pixels: gray, width: width, height: height) ?? targetLineHeight
        let leaders = eraseDotLeaders(&gray, width: width, height: height, lineHeight: lineHeight)
        return OCRImage(
            width: width, height: height, pixels: gray, scale: scale, deskewDegrees: deskew, bow: bowPixels,
            turnedHalf: turnHalf, sourceWidth: rgb.width, sourceHeight: rgb.height, panel: panel, dotLeaderRuns: leaders)
    }

    /// Paints paper over dot leaders (the runs of dots between a row's amount and its %DV): four or more small
    /// round marks, each under a third of a line high with no ink under it for half a line, in a row along one
    /// baseline, evenly spaced, each within 0.6 of a line's height of the next. Tesseract, given them, reads the words beside them wrongly ("Zinc 8 mg ......" as
    /// "Zine 8°MG scctwese") or takes the %DV after them for a column of its own and leaves it out. A decimal
    /// point, a full stop, a colon or "..." is no such run. Returns the number of runs erased.
    public static func eraseDotLeaders(_ pixels: inout [UInt8], width: Int, height: Int, lineHeight: Double) -> Int {
        guard width > 2, height > 2, pixels.count == width * height else { return 0 }
        let maxDot = max(2, Int(lineHeight * 0.3))
        var visited = [Bool](repeating: false, count: pixels.count)
        var dots: [(x0: Int, y0: Int, x1: Int, y1: Int)] = []
        var stack: [Int] = []
        for start in 0..<pixels.count where pixels[start] < 128 && !visited[start] {
            visited[start] = true
            stack.append(start)
            var x0 = start % width
            var x1 = x0
            var y0 = start / width
            var y1 = y0
            var area = 0
            while let p = stack.popLast() {
                area += 1
                let x = p % width
                let y = p / width
                x0 = min(x0, x)
                x1 = max(x1, x)
                y0 = min(y0, y)
                y1 = max(y1, y)
                for dy in -1...1 {
                    let yy = y + dy
                    guard yy >= 0, yy < height else { continue }
                    for dx in -1...1 {
                        let xx = x + dx
                        guard xx >= 0, xx < width else { continue }
                        let q = yy * width + xx
                        if pixels[q] < 128 && !visited[q] {
                            visited[q] = true
                            stack.append(q)
                        }
                    }
                }
            }
            let w = x1 - x0 + 1
            let h = y1 - y0 + 1
            // A dot: small, about as wide as high, mostly ink, with nothing under it for half a line (the dot of
            // an "i" or a "j" has its stem under it; a leader's dot sits on the baseline).
            if w <= maxDot, h <= maxDot, w * 2 >= h, h * 2 >= w, Double(area) >= 0.4 * Double(w * h), w * h >= 4 {
                let lowest = min(height - 1, y1 + 1 + Int(lineHeight * 0.5))
                let stem = y1 + 2 <= lowest && ((y1 + 2)...lowest).contains { y in (x0...x1).contains { pixels[y * width + $0] < 128 } }
                if !stem { dots.append((x0, y0, x1, y1)) }
            }
        }
        guard dots.count >= 4 else { return 0 }
        // Chains of dots along one baseline, left to right.
        let order = dots.indices.sorted { dots[$0].x0 < dots[$1].x0 }
        var next = [Int?](repeating: nil, count: dots.count)
        var hasPrevious = [Bool](repeating: false, count: dots.count)
        for (k, i) in order.enumerated() {
            let a = dots[i]
            for j in order[(k + 1)...] {
                let b = dots[j]
                if Double(b.x0 - a.x1) > 0.6 * lineHeight { break }
                guard !hasPrevious[j], b.x0 > a.x1, abs(b.y1 - a.y1) <= max(2, maxDot / 2) else { continue }
                next[i] = j
                hasPrevious[j] = true
                break
            }
        }
        var runs = 0
        for i in dots.indices where !hasPrevious[i] {
            var chain = [i]
            while let j = next[chain.last!] { chain.append(j) }
            // Evenly spaced, as a leader's dots are.
            let gaps = zip(chain, chain.dropFirst()).map { dots[$1].x0 - dots[$0].x0 }
            guard chain.count >= 4, let least = gaps.min(), let most = gaps.max(), most <= 2 * least + 2 else { continue }
            runs += 1
            for d in chain.map({ dots[$0] }) {
                for y in max(0, d.y0 - 1)...min(height - 1, d.y1 + 1) {
                    for x in max(0, d.x0 - 1)...min(width - 1, d.x1 + 1) { pixels[y * width + x] = 255 }
                }
            }
        }
        return runs
    }

    /// The panel in a one-band image, when a surround clearly darker than the paper lies round it
    /// (`cairn_ocr_find_panel`): the box to read, the surround's mask inside it, the paper's grey.
    private static func findPanel(_ gray: VipsImageRef) throws -> (crop: OCRPanelCrop, surround: VipsImageRef, paper: Int)? {
        var found = CairnPanel()
        var surround: OpaquePointer?
        guard cairn_ocr_find_panel(gray.pointer, &found, &surround) == 0 else {
            throw ImagingError(.corrupt, libraryDetail: Vips.takeError())
        }
        guard found.found == 1, let surround else { return nil }
        let crop = OCRPanelCrop(
            x: Int(found.left), y: Int(found.top), width: Int(found.width), height: Int(found.height),
            linesOutside: Int(found.lines_outside))
        return (crop, VipsImageRef(surround), Int(found.paper))
    }

    /// The panel as `prepare` finds it in a photo (nil when no surround clearly darker than the paper lies round
    /// it), for tests and the bench.
    public static func panel(in rgb: RGBImage) throws -> OCRPanelCrop? {
        try Vips.start()
        let source = try VipsImageRef.fromRGB(rgb)
        let gray = try withExtendedLifetime(source) { try VipsImageRef.wrap(cairn_ocr_gray(source.pointer), orThrow: .corrupt) }
        return try findPanel(try gray.inMemory())?.crop
    }

    /// A bow smaller than this share of a text line is left alone (Tesseract reads it as it is).
    public static let minimumBowShareOfLine = 0.2
    /// The number of vertical strips whose ink profiles are aligned to find a bow.
    static let bowStrips = 10

    /// How far (pixels) the text lines at the left and right edges sit below (positive) or above (negative) where
    /// they cross the middle, beyond a straight tilt: a label wrapped round a bottle seen from a little above or
    /// below. The image is cut into vertical strips; each strip's ink profile along lines tilted by `skewDegrees`
    /// is aligned with its neighbour's (normalised cross-correlation, shifts under half a line so one line is never
    /// matched with the next), and a parabola is fitted through the accumulated shifts. 0 when too few strips
    /// hold text or the shifts do not follow a parabola.
    public static func bow(pixels: [UInt8], width: Int, height: Int, skewDegrees: Double, lineHeight: Double) -> Double {
        guard width >= bowStrips * 8, height >= 16, pixels.count == width * height, lineHeight > 0 else { return 0 }
        let a = skewDegrees * .pi / 180
        let s = sin(a)
        let c = cos(a)
        let offset = width / 2 + 2
        let bins = height + 2 * offset
        var profiles = [[Double]](repeating: [Double](repeating: 0, count: bins), count: bowStrips)
        for y in 0..<height {
            let base = y * width
            let dy = Double(y - height / 2) * c
            for x in 0..<width where pixels[base + x] < 128 {
                let yy = -Double(x - width / 2) * s + dy
                let bin = Int(yy.rounded()) + height / 2 + offset
                guard bin >= 0, bin < bins else { continue }
                profiles[min(bowStrips - 1, x * bowStrips / width)][bin] += 1
            }
        }
        let ink = profiles.map { $0.reduce(0, +) }
        let most = ink.max() ?? 0
        guard most > 0 else { return 0 }
        // Strips with text enough to align (a gap between columns holds little).
        let usable = (0..<bowStrips).filter { ink[$0] >= most * 0.15 }
        guard usable.count >= 4 else { return 0 }
        func correlation(_ p: [Double], _ q: [Double], _ shift: Int) -> Double {
            var sum = 0.0
            var pp = 0.0
            var qq = 0.0
            for i in max(0, -shift)..<min(bins, bins - shift) {
                let u = p[i]
                let v = q[i + shift]
                sum += u * v
                pp += u * u
                qq += v * v
            }
            return pp > 0 && qq > 0 ? sum / (pp * qq).squareRoot() : 0
        }
        var positions: [(u: Double, shift: Double, weight: Double)] = []
        var accumulated = 0.0
        let maxStep = max(1, Int(lineHeight * 0.45))
        for (k, strip) in usable.enumerated() {
            if k > 0 {
                let previous = profiles[usable[k - 1]]
                let current = profiles[strip]
                // Mean-free profiles, so the correlation follows the lines rather than the amount of ink.
                let pm = previous.reduce(0, +) / Double(bins)
                let cm = current.reduce(0, +) / Double(bins)
                let p = previous.map { $0 - pm }
                let q = current.map { $0 - cm }
                let scores = (-maxStep...maxStep).map { correlation(p, q, $0) }
                guard let bestIndex = scores.indices.max(by: { scores[$0] < scores[$1] }), scores[bestIndex] > 0.3 else { return 0 }
                var step = Double(bestIndex - maxStep)
                // Parabolic refinement between the neighbouring shifts.
                if bestIndex > 0, bestIndex < scores.count - 1 {
                    let l = scores[bestIndex - 1]
                    let m = scores[bestIndex]
                    let r = scores[bestIndex + 1]
                    let denominator = l - 2 * m + r
                    if denominator < 0 { step += 0.5 * (l - r) / denominator }
                }
                accumulated += step
            }
            let u = (Double(strip) + 0.5) / Double(bowStrips) * 2 - 1
            positions.append((u, accumulated, ink[strip]))
        }
        // Weighted least squares for shift = p0 + p1 u + p2 u^2.
        var m = [[Double]](repeating: [Double](repeating: 0, count: 3), count: 3)
        var v = [Double](repeating: 0, count: 3)
        for p in positions {
            let basis = [1, p.u, p.u * p.u]
            for i in 0..<3 {
                v[i] += p.weight * basis[i] * p.shift
                for j in 0..<3 { m[i][j] += p.weight * basis[i] * basis[j] }
            }
        }
        guard let fit = solve3(m, v) else { return 0 }
        let total = positions.map(\.weight).reduce(0, +)
        let residual =
            (positions.map { p in
                let e = p.shift - (fit[0] + fit[1] * p.u + fit[2] * p.u * p.u)
                return p.weight * e * e
            }.reduce(0, +) / total).squareRoot()
        // Shifts that a parabola does not explain are no bow (a misaligned strip, a picture).
        guard residual < lineHeight * 0.25 else { return 0 }
        return fit[2]
    }

    /// The solution of a 3x3 linear system (Cramer's rule), nil when it is singular.
    private static func solve3(_ m: [[Double]], _ v: [Double]) -> [Double]? {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        guard abs(d) > 1e-9 else { return nil }
        return (0..<3).map { column in
            var replaced = m
            for row in 0..<3 { replaced[row][column] = v[row] }
            return det(replaced) / d
        }
    }

    /// `pixels` with the bow taken out: the column at `u` (-1 at the left edge, 1 at the right) moved up by
    /// `bow * u * u` (linear interpolation; white where nothing is left).
    public static func unbowed(_ pixels: [UInt8], width: Int, height: Int, bow: Double) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: pixels.count)
        for x in 0..<width {
            let u = (Double(x) + 0.5) / Double(width) * 2 - 1
            let shift = bow * u * u
            let whole = Int(shift.rounded(.down))
            let fraction = shift - Double(whole)
            for y in 0..<height {
                let y0 = y + whole
                let y1 = y0 + 1
                guard y0 >= 0, y1 < height else { continue }
                let value = Double(pixels[y0 * width + x]) * (1 - fraction) + Double(pixels[y1 * width + x]) * fraction
                out[y * width + x] = UInt8(value.rounded())
            }
        }
        return out
    }

    /// A linear contrast stretch: the `low` darkest share of pixels become 0, those above the `high` quantile 255.
    /// Unchanged when the image is nearly flat.
    public static func stretched(_ pixels: [UInt8], low: Double, high: Double) -> [UInt8] {
        guard !pixels.isEmpty else { return pixels }
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        func quantile(_ q: Double) -> Int {
            let wanted = Int(Double(pixels.count) * q)
            var sum = 0
            for v in 0..<256 {
                sum += histogram[v]
                if sum > wanted { return v }
            }
            return 255
        }
        let lo = quantile(low)
        let hi = quantile(high)
        guard hi > lo + 8 else { return pixels }
        let table = (0..<256).map { v in UInt8(max(0, min(255, (v - lo) * 255 / (hi - lo)))) }
        return pixels.map { table[Int($0)] }
    }

    /// The angle (degrees, libvips convention) the text lines are tilted by: rotating by its negative levels
    /// them. Found by the projection profile with the sharpest rows. 0 for an image without dark pixels.
    public static func estimateSkew(pixels: [UInt8], width: Int, height: Int) -> Double {
        guard width > 8, height > 8, pixels.count == width * height else { return 0 }
        let step = max(1, max(width, height) / 1000)
        var xs: [Double] = []
        var ys: [Double] = []
        for y in stride(from: 0, to: height, by: step) {
            let row = y * width
            for x in stride(from: 0, to: width, by: step) where pixels[row + x] < 128 {
                xs.append(Double(x - width / 2))
                ys.append(Double(y - height / 2))
            }
        }
        guard xs.count > 50, xs.count < (width / step) * (height / step) / 2 else { return 0 }
        let diagonal = Int(Double(width + height)) / step + 4
        func score(_ degrees: Double) -> Double {
            let a = degrees * .pi / 180
            let s = sin(a)
            let c = cos(a)
            var bins = [Int](repeating: 0, count: diagonal * 2 + 1)
            for i in 0..<xs.count {
                // The row a pixel falls in once the image is turned by -degrees.
                let yy = -xs[i] * s + ys[i] * c
                bins[Int(yy / Double(step)) + diagonal] += 1
            }
            return bins.reduce(0.0) { $0 + Double($1 * $1) }
        }
        var best = 0.0
        var bestScore = score(0)
        for tenth in stride(from: -Int(maxSkewDegrees * 2), through: Int(maxSkewDegrees * 2), by: 1) where tenth != 0 {
            let angle = Double(tenth) / 2
            let sc = score(angle)
            if sc > bestScore {
                bestScore = sc
                best = angle
            }
        }
        // Refine around the best half degree.
        for offset in [-0.4, -0.3, -0.2, -0.1, 0.1, 0.2, 0.3, 0.4] {
            let sc = score(best + offset)
            if sc > bestScore {
                bestScore = sc
                best = best + offset
            }
        }
        return best
    }

    /// The median height of the image's text lines (runs of rows holding dark pixels, counted along lines
    /// tilted by `skewDegrees`), ignoring rules and specks; nil when no text-like rows are found.
    public static func medianLineHeight(pixels: [UInt8], width: Int, height: Int, skewDegrees: Double = 0) -> Double? {
        guard width > 0, height > 0, pixels.count == width * height else { return nil }
        let a = skewDegrees * .pi / 180
        let s = sin(a)
        let c = cos(a)
        let offset = width + height
        var rows = [Int](repeating: 0, count: 2 * offset + 1)
        for y in 0..<height {
            let base = y * width
            for x in 0..<width where pixels[base + x] < 128 {
                let yy = -Double(x - width / 2) * s + Double(y - height / 2) * c
                rows[Int(yy.rounded()) + offset] += 1
            }
        }
        let minimumInk = max(2, width / 400)
        var runs: [Int] = []
        var run = 0
        for ink in rows {
            // A full-width rule is not text.
            if ink >= minimumInk && ink < width * 7 / 10 {
                run += 1
            } else {
                if run > 0 { runs.append(run) }
                run = 0
            }
        }
        if run > 0 { runs.append(run) }
        let lines = runs.filter { $0 >= 6 && $0 < height / 3 }.sorted()
        guard !lines.isEmpty else { return nil }
        return Double(lines[lines.count / 2])
    }
}

/// Phone-like degradations of a rendered image, for the label-reading benchmark and tests (libvips).
public enum ImageDegradation {
    /// `image` turned by `degrees` (libvips convention), corners filled with `background` gray.
    public static func rotated(_ image: RGBImage, degrees: Double, background: UInt8 = 255) throws -> RGBImage {
        try Vips.start()
        return try apply(image) { cairn_ocr_rotate($0, degrees, Double(background)) }
    }

    /// `image` blurred with a Gaussian of `sigma` pixels.
    public static func blurred(_ image: RGBImage, sigma: Double) throws -> RGBImage {
        try Vips.start()
        return try apply(image) { cairn_ocr_blur($0, sigma) }
    }

    /// `image` turned by 180 degrees.
    public static func turnedHalf(_ image: RGBImage) throws -> RGBImage {
        try Vips.start()
        return try apply(image) { cairn_ocr_rot180($0) }
    }

    private static func apply(_ image: RGBImage, _ operation: (OpaquePointer) -> OpaquePointer?) throws -> RGBImage {
        let source = try VipsImageRef.fromRGB(image)
        let out = try withExtendedLifetime(source) { try VipsImageRef.wrap(operation(source.pointer), orThrow: .writeFailed) }
        let srgb = try out.srgb8()
        return RGBImage(width: srgb.width, height: srgb.height, pixels: try srgb.memory())
    }
}
