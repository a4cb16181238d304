import CairnCore
import Foundation

/// A transform from baseline working coordinates to probe working coordinates, centred on the baseline's centre
/// `(cx, cy)` for good conditioning. A similarity (`a`, `b`, `tx`, `ty`: scale, turn, shift) by default:
/// `x' = a(x-cx) - b(y-cy) + tx`, `y' = b(x-cx) + a(y-cy) + ty`. With `e`, `f` (an affine stretch and shear) and `g`, `h`
/// (perspective, per pixel) it is a full 8-parameter homography, written so that the centre still maps to `(tx, ty)`:
/// with `xr = x-cx`, `yr = y-cy` and `d = 1 + g xr + h yr`,
/// `x' = tx + ((a+e) xr + (f-b) yr) / d`, `y' = ty + ((b+f) xr + (a-e) yr) / d`.
struct Warp: Sendable {
    var a: Float
    var b: Float
    var tx: Float
    var ty: Float
    var cx: Float
    var cy: Float
    var e: Float = 0
    var f: Float = 0
    var g: Float = 0
    var h: Float = 0

    static func identity(cx: Float, cy: Float, probeCX: Float, probeCY: Float) -> Warp {
        Warp(a: 1, b: 0, tx: probeCX, ty: probeCY, cx: cx, cy: cy)
    }

    /// True when the transform is a similarity (no stretch, shear or perspective).
    var isSimilarity: Bool { e == 0 && f == 0 && g == 0 && h == 0 }

    @inline(__always) func apply(_ x: Float, _ y: Float) -> (Float, Float) {
        let xr = x - cx
        let yr = y - cy
        if g == 0 && h == 0 && e == 0 && f == 0 { return (a * xr - b * yr + tx, b * xr + a * yr + ty) }
        let d = 1 / max(0.2, 1 + g * xr + h * yr)
        return (tx + ((a + e) * xr + (f - b) * yr) * d, ty + ((b + f) * xr + (a - e) * yr) * d)
    }

    var scale: Float { (a * a + b * b).squareRoot() }
    var rotationDegrees: Float { atan2f(b, a) * 180 / .pi }

    /// The largest relative change of magnification the perspective part makes at a distance `radius` from the centre
    /// (the keystone of a slanted camera), 0 for a similarity.
    func keystone(radius: Float) -> Float { (g * g + h * h).squareRoot() * radius }

    /// The same transform expressed at a pyramid level whose pixels are `s` times larger.
    func atLevel(scale s: Float) -> Warp {
        Warp(
            a: a, b: b, tx: (tx + 0.5) / s - 0.5, ty: (ty + 0.5) / s - 0.5,
            cx: (cx + 0.5) / s - 0.5, cy: (cy + 0.5) / s - 0.5, e: e, f: f, g: g * s, h: h * s)
    }

    /// Inverse of `atLevel`.
    func fromLevel(scale s: Float) -> Warp {
        Warp(
            a: a, b: b, tx: (tx + 0.5) * s - 0.5, ty: (ty + 0.5) * s - 0.5,
            cx: (cx + 0.5) * s - 0.5, cy: (cy + 0.5) * s - 0.5, e: e, f: f, g: g / s, h: h / s)
    }
}

/// Solves the n x n system `m x = v` (row-major `m`) by Gaussian elimination with partial pivoting;
/// nil when singular.
func solveLinear(_ m: [Double], _ v: [Double], n: Int) -> [Double]? {
    var a = m
    var b = v
    for col in 0..<n {
        var piv = col
        for r in (col + 1)..<max(col + 1, n) where abs(a[r * n + col]) > abs(a[piv * n + col]) { piv = r }
        if abs(a[piv * n + col]) < 1e-12 { return nil }
        if piv != col {
            for k in 0..<n { a.swapAt(col * n + k, piv * n + k) }
            b.swapAt(col, piv)
        }
        for r in (col + 1)..<max(col + 1, n) {
            let f = a[r * n + col] / a[col * n + col]
            if f == 0 { continue }
            for k in col..<n { a[r * n + k] -= f * a[col * n + k] }
            b[r] -= f * b[col]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for r in stride(from: n - 1, through: 0, by: -1) {
        var s = b[r]
        for k in (r + 1)..<max(r + 1, n) { s -= a[r * n + k] * x[k] }
        x[r] = s / a[r * n + r]
    }
    return x
}

// MARK: - Keypoints (FAST-9 corners + oriented binary descriptors)

struct Keypoint: Sendable {
    var x: Float
    var y: Float
    var score: Float
    var descriptor: (UInt64, UInt64, UInt64, UInt64)
}

enum Keypoints {
    static let circle: [(Int, Int)] = [
        (0, -3), (1, -3), (2, -2), (3, -1), (3, 0), (3, 1), (2, 2), (1, 3),
        (0, 3), (-1, 3), (-2, 2), (-3, 1), (-3, 0), (-3, -1), (-2, -2), (-1, -3),
    ]
    static let patchRadius = 12
    static let angleBins = 32

    /// 256 point pairs of an isotropic Gaussian pattern, pre-rotated into `angleBins` orientations.
    static let rotatedPatterns: [[Int32]] = {
        var rng = SeededGenerator(seed: 0x5EED_0001)
        var pairs: [(Float, Float, Float, Float)] = []
        func gauss() -> Float {
            let u1 = max(Float.leastNormalMagnitude, Float(rng.next() >> 40) / Float(1 << 24))
            let u2 = Float(rng.next() >> 40) / Float(1 << 24)
            return (-2 * logf(u1)).squareRoot() * cosf(2 * .pi * u2)
        }
        while pairs.count < 256 {
            let p = (gauss() * 4.5, gauss() * 4.5, gauss() * 4.5, gauss() * 4.5)
            let lim = Float(patchRadius - 1)
            if p.0 * p.0 + p.1 * p.1 > lim * lim || p.2 * p.2 + p.3 * p.3 > lim * lim { continue }
            pairs.append(p)
        }
        var out: [[Int32]] = []
        for bin in 0..<angleBins {
            let ang = Float(bin) * 2 * .pi / Float(angleBins)
            let c = cosf(ang)
            let s = sinf(ang)
            var offs: [Int32] = []
            for p in pairs {
                offs.append(Int32((c * p.0 - s * p.1).rounded()))
                offs.append(Int32((s * p.0 + c * p.1).rounded()))
                offs.append(Int32((c * p.2 - s * p.3).rounded()))
                offs.append(Int32((s * p.2 + c * p.3).rounded()))
            }
            out.append(offs)
        }
        return out
    }()

    /// Detects up to `maxCount` corners spread over a 4x4 grid and describes them.
    /// `gray` is a contrast-normalised plane (values around 0...255).
    static func detect(gray: Plane, smoothed: Plane, maxCount: Int = 360, threshold: Float = 9) -> [Keypoint] {
        let w = gray.width
        let h = gray.height
        let border = patchRadius + 2
        guard w > 2 * border + 2, h > 2 * border + 2 else { return [] }
        var scores = [Float](repeating: 0, count: w * h)
        let offsets = circle.map { $0.1 * w + $0.0 }
        offsets.withUnsafeBufferPointer { offs in
            gray.data.withUnsafeBufferPointer { g in
                scores.withUnsafeMutableBufferPointer { sc in
                    for y in border..<(h - border) {
                        for x in border..<(w - border) {
                            let i = y * w + x
                            let c = g[i]
                            let hi = c + threshold
                            let lo = c - threshold
                            // Quick rejection on the four compass points: a 9-arc needs two adjacent ones.
                            let p0 = g[i + offs[0]]
                            let p4 = g[i + offs[4]]
                            let p8 = g[i + offs[8]]
                            let p12 = g[i + offs[12]]
                            var nb = 0
                            var nd = 0
                            if p0 > hi { nb += 1 } else if p0 < lo { nd += 1 }
                            if p4 > hi { nb += 1 } else if p4 < lo { nd += 1 }
                            if p8 > hi { nb += 1 } else if p8 < lo { nd += 1 }
                            if p12 > hi { nb += 1 } else if p12 < lo { nd += 1 }
                            if nb < 2 && nd < 2 { continue }
                            var bright: UInt32 = 0
                            var dark: UInt32 = 0
                            var sb: Float = 0
                            var sd: Float = 0
                            for k in 0..<16 {
                                let v = g[i + offs[k]]
                                if v > hi {
                                    bright |= 1 << k
                                    sb += v - hi
                                } else if v < lo {
                                    dark |= 1 << k
                                    sd += lo - v
                                }
                            }
                            if hasArc9(bright) { sc[i] = sb } else if hasArc9(dark) { sc[i] = sd }
                        }
                    }
                }
            }
        }
        // Non-maximum suppression (3x3) and grid bucketing.
        let grid = 4
        var buckets = [[(Float, Int)]](repeating: [], count: grid * grid)
        for y in border..<(h - border) {
            for x in border..<(w - border) {
                let i = y * w + x
                let s = scores[i]
                if s <= 0 { continue }
                var isMax = true
                for dy in -1...1 {
                    for dx in -1...1 where !(dx == 0 && dy == 0) {
                        if scores[i + dy * w + dx] > s || (scores[i + dy * w + dx] == s && dy * w + dx < 0) { isMax = false }
                    }
                }
                if !isMax { continue }
                let bx = min(grid - 1, x * grid / w)
                let by = min(grid - 1, y * grid / h)
                buckets[by * grid + bx].append((s, i))
            }
        }
        var chosen: [(Float, Int)] = []
        let perBucket = maxCount / (grid * grid)
        var rest: [(Float, Int)] = []
        for var b in buckets {
            b.sort { $0.0 > $1.0 }
            chosen.append(contentsOf: b.prefix(perBucket))
            rest.append(contentsOf: b.dropFirst(perBucket))
        }
        if chosen.count < maxCount {
            rest.sort { $0.0 > $1.0 }
            chosen.append(contentsOf: rest.prefix(maxCount - chosen.count))
        }
        var result: [Keypoint] = []
        result.reserveCapacity(chosen.count)
        smoothed.data.withUnsafeBufferPointer { sm in
            for (s, i) in chosen {
                let x = i % w
                let y = i / w
                // Orientation by intensity centroid.
                var m10: Float = 0
                var m01: Float = 0
                let r = 7
                for dy in -r...r {
                    for dx in -r...r where dx * dx + dy * dy <= r * r {
                        let v = sm[(y + dy) * w + x + dx]
                        m10 += Float(dx) * v
                        m01 += Float(dy) * v
                    }
                }
                var ang = atan2f(m01, m10)
                if ang < 0 { ang += 2 * .pi }
                let bin = Int((ang / (2 * .pi) * Float(angleBins)).rounded()) % angleBins
                let pat = rotatedPatterns[bin]
                var d: [UInt64] = [0, 0, 0, 0]
                pat.withUnsafeBufferPointer { p in
                    for k in 0..<256 {
                        let a = sm[(y + Int(p[4 * k + 1])) * w + x + Int(p[4 * k])]
                        let b = sm[(y + Int(p[4 * k + 3])) * w + x + Int(p[4 * k + 2])]
                        if a < b { d[k >> 6] |= 1 << UInt64(k & 63) }
                    }
                }
                result.append(Keypoint(x: Float(x), y: Float(y), score: s, descriptor: (d[0], d[1], d[2], d[3])))
            }
        }
        return result
    }

    @inline(__always) static func hasArc9(_ m: UInt32) -> Bool {
        if m.nonzeroBitCount < 9 { return false }
        var x = m | (m << 16)
        for _ in 0..<8 { x &= x >> 1 }
        return x != 0
    }

    @inline(__always) static func hamming(_ a: (UInt64, UInt64, UInt64, UInt64), _ b: (UInt64, UInt64, UInt64, UInt64)) -> Int {
        (a.0 ^ b.0).nonzeroBitCount + (a.1 ^ b.1).nonzeroBitCount + (a.2 ^ b.2).nonzeroBitCount + (a.3 ^ b.3).nonzeroBitCount
    }

    /// Ratio-test matches from `base` to `probe`: pairs of (baseline point, probe point).
    static func match(_ base: [Keypoint], _ probe: [Keypoint], maxDistance: Int = 70, ratio: Float = 0.82) -> [(Float, Float, Float, Float)] {
        var out: [(Float, Float, Float, Float)] = []
        guard probe.count >= 2 else { return out }
        for k in base {
            var best = Int.max
            var second = Int.max
            var bi = -1
            for (j, p) in probe.enumerated() {
                let d = hamming(k.descriptor, p.descriptor)
                if d < best {
                    second = best
                    best = d
                    bi = j
                } else if d < second {
                    second = d
                }
            }
            if bi >= 0 && best <= maxDistance && Float(best) < ratio * Float(second) {
                out.append((k.x, k.y, probe[bi].x, probe[bi].y))
            }
        }
        return out
    }

    /// RANSAC over 2-point similarity hypotheses, then a least-squares refit on the inliers.
    static func ransacSimilarity(
        _ m: [(Float, Float, Float, Float)], cx: Float, cy: Float,
        threshold: Float = 2.5, iterations: Int = 400
    ) -> (Warp, Int)? {
        guard m.count >= 3 else { return nil }
        var rng = SeededGenerator(seed: 0xA11C_0FFE)
        var bestInliers = 0
        var best: Warp?
        let t2 = threshold * threshold
        for _ in 0..<iterations {
            let i = Int(rng.next() % UInt64(m.count))
            var j = Int(rng.next() % UInt64(m.count))
            if i == j { j = (j + 1) % m.count }
            guard let s = fromTwo(m[i], m[j], cx: cx, cy: cy) else { continue }
            if s.scale < 0.7 || s.scale > 1.45 || abs(s.rotationDegrees) > 45 { continue }
            var n = 0
            for p in m {
                let (x, y) = s.apply(p.0, p.1)
                let dx = x - p.2
                let dy = y - p.3
                if dx * dx + dy * dy < t2 { n += 1 }
            }
            if n > bestInliers {
                bestInliers = n
                best = s
            }
        }
        guard var s = best, bestInliers >= 3 else { return nil }
        for _ in 0..<2 {
            let inl = m.filter { p in
                let (x, y) = s.apply(p.0, p.1)
                let dx = x - p.2
                let dy = y - p.3
                return dx * dx + dy * dy < t2 * 1.5
            }
            guard inl.count >= 3, let r = leastSquares(inl, cx: cx, cy: cy) else { break }
            s = r
            bestInliers = inl.count
        }
        return (s, bestInliers)
    }

    static func fromTwo(_ p: (Float, Float, Float, Float), _ q: (Float, Float, Float, Float), cx: Float, cy: Float) -> Warp? {
        let ux = q.0 - p.0
        let uy = q.1 - p.1
        let vx = q.2 - p.2
        let vy = q.3 - p.3
        let d = ux * ux + uy * uy
        if d < 16 { return nil }
        let a = (ux * vx + uy * vy) / d
        let b = (ux * vy - uy * vx) / d
        let xr = p.0 - cx
        let yr = p.1 - cy
        return Warp(a: a, b: b, tx: p.2 - (a * xr - b * yr), ty: p.3 - (b * xr + a * yr), cx: cx, cy: cy)
    }

    static func leastSquares(_ m: [(Float, Float, Float, Float)], cx: Float, cy: Float) -> Warp? {
        var ata = [Double](repeating: 0, count: 16)
        var atb = [Double](repeating: 0, count: 4)
        for p in m {
            let xr = Double(p.0 - cx)
            let yr = Double(p.1 - cy)
            // Rows (xr, -yr, 1, 0) -> x' and (yr, xr, 0, 1) -> y'.
            let u = Double(p.2)
            let v = Double(p.3)
            ata[0] += xr * xr + yr * yr
            ata[2] += xr
            ata[3] += yr
            ata[5] += yr * yr + xr * xr
            ata[6] += -yr
            ata[7] += xr
            ata[10] += 1
            ata[15] += 1
            atb[0] += xr * u + yr * v
            atb[1] += -yr * u + xr * v
            atb[2] += u
            atb[3] += v
        }
        for i in 0..<4 { for j in 0..<i { ata[i * 4 + j] = ata[j * 4 + i] } }
        guard let x = solveLinear(ata, atb, n: 4) else { return nil }
        return Warp(a: Float(x[0]), b: Float(x[1]), tx: Float(x[2]), ty: Float(x[3]), cx: cx, cy: cy)
    }
}

// MARK: - Intensity alignment (ECC-like Gauss-Newton with gain/offset, coarse-to-fine)

/// Sums behind a normalised cross-correlation of the baseline's central square and the warped probe, per tile of a
/// `parts` x `parts` grid over that square (one tile for the whole square).
struct CorrelationSums {
    var sb: Double = 0, sp: Double = 0, sbb: Double = 0, spp: Double = 0, sbp: Double = 0, count: Double = 0

    /// The correlation of the collected samples; nil when either side is flat.
    var correlation: Double? {
        let cov = sbp / count - sb / count * sp / count
        let vb = sbb / count - (sb / count) * (sb / count)
        let vp = spp / count - (sp / count) * (sp / count)
        guard vb > 1e-12, vp > 1e-12 else { return nil }
        return cov / (vb * vp).squareRoot()
    }

    /// Samples every `stride` pixels of the central square (side `fraction` of the shorter side) whose warped point
    /// lies inside the probe; returns the sums of each tile, row-major, and the sample count of a full tile.
    static func collect(
        base: Plane, probe: Plane, warp: Warp, fraction: Float, stride: Int,
        parts: Int
    ) -> (tiles: [CorrelationSums], perTile: Double) {
        let side = Float(min(base.width, base.height)) * fraction
        let x0 = Int((Float(base.width) - side) / 2)
        let y0 = Int((Float(base.height) - side) / 2)
        let n = Int(side)
        var tiles = [CorrelationSums](repeating: CorrelationSums(), count: parts * parts)
        base.data.withUnsafeBufferPointer { b in
            probe.data.withUnsafeBufferPointer { p in
                tiles.withUnsafeMutableBufferPointer { tiles in
                    var y = y0
                    while y < y0 + n {
                        let ty = parts == 1 ? 0 : min(parts - 1, (y - y0) * parts / n)
                        var x = x0
                        while x < x0 + n {
                            let (u, v) = warp.apply(Float(x), Float(y))
                            if u >= 0 && v >= 0 && u <= Float(probe.width - 1) && v <= Float(probe.height - 1) {
                                let t = parts == 1 ? 0 : ty * parts + min(parts - 1, (x - x0) * parts / n)
                                let bv = Double(b[y * base.width + x])
                                let pv = Double(Plane.sample(p, probe.width, probe.height, u, v))
                                tiles[t].sb += bv
                                tiles[t].sp += pv
                                tiles[t].sbb += bv * bv
                                tiles[t].spp += pv * pv
                                tiles[t].sbp += bv * pv
                                tiles[t].count += 1
                            }
                            x += stride
                        }
                        y += stride
                    }
                }
            }
        }
        let tileSide = n / parts
        return (tiles, Double(((tileSide + stride - 1) / stride) * ((tileSide + stride - 1) / stride)))
    }
}

struct Pyramid: Sendable {
    var levels: [Plane]
    var gradX: [Plane]
    var gradY: [Plane]

    init(_ base: Plane, count: Int) {
        var lv = [base]
        while lv.count < count, lv.last!.width >= 32, lv.last!.height >= 32 { lv.append(lv.last!.boxBlurred(radius: 1).halved()) }
        levels = lv
        gradX = lv.map { Pyramid.gradient($0, dx: true) }
        gradY = lv.map { Pyramid.gradient($0, dx: false) }
    }

    static func gradient(_ p: Plane, dx: Bool) -> Plane {
        let w = p.width
        let h = p.height
        var out = [Float](repeating: 0, count: w * h)
        p.data.withUnsafeBufferPointer { s in
            for y in 0..<h {
                for x in 0..<w {
                    if dx {
                        out[y * w + x] = 0.5 * (s[y * w + min(x + 1, w - 1)] - s[y * w + max(x - 1, 0)])
                    } else {
                        out[y * w + x] = 0.5 * (s[min(y + 1, h - 1) * w + x] - s[max(y - 1, 0) * w + x])
                    }
                }
            }
        }
        return Plane(width: w, height: h, data: out)
    }
}

enum IntensityAlignment {
    /// Normalised cross-correlation between the baseline region and the warped probe at one level;
    /// `fraction` is the side of the central square used, relative to the shorter side. Scaled down when under 90% of
    /// the samples fall inside the probe.
    static func correlation(base: Plane, probe: Plane, warp: Warp, fraction: Float, stride: Int) -> Float {
        let (sums, perTile) = CorrelationSums.collect(base: base, probe: probe, warp: warp, fraction: fraction, stride: stride, parts: 1)
        let s = sums[0]
        guard s.count > 16 else { return -1 }
        let coverage = s.count / perTile
        return s.correlation.map { Float($0 * min(1, coverage / 0.9)) } ?? 0
    }

    /// How the 8-parameter (perspective) refinement is held back: a Gaussian prior centred on "no stretch, no
    /// perspective" with these standard deviations, the stretch and shear as fractions, the perspective as the relative
    /// magnification change at `radius` pixels from the centre. The prior weighs against the data as `samplesPerDatum`
    /// neighbouring samples of one residual would (neighbouring pixels are not independent evidence).
    struct PerspectivePrior {
        var affineSD: Float
        var perspectiveSD: Float
        var radius: Float
        var samplesPerDatum: Float = 4
    }

    /// Gauss-Newton refinement of `warp` at one pyramid level: the similarity's four parameters, or with `perspective`
    /// all eight of a homography (the four beyond the similarity pulled towards zero by the prior).
    static func refine(
        base: Plane, probe: Plane, gx: Plane, gy: Plane, warp start: Warp,
        fraction: Float, stride: Int, iterations: Int, weights: TileWeights? = nil,
        perspective: PerspectivePrior? = nil
    ) -> Warp {
        var warp = start
        let side = Float(min(base.width, base.height)) * fraction
        let x0 = Int((Float(base.width) - side) / 2)
        let y0 = Int((Float(base.height) - side) / 2)
        let n = Int(side)
        // The grid points and their tile weights do not change between iterations: collected once. Samples are written
        // into buffers of the largest size (no appends in the loop).
        var gridX: [Int32] = []
        var gridY: [Int32] = []
        var gridW: [Float] = []
        do {
            var y = y0
            while y < y0 + n {
                var x = x0
                while x < x0 + n {
                    let tw = weights?.weight(x: x, y: y, width: base.width, height: base.height) ?? 1
                    if tw > 0 {
                        gridX.append(Int32(x))
                        gridY.append(Int32(y))
                        gridW.append(tw)
                    }
                    x += stride
                }
                y += stride
            }
        }
        let cap = gridX.count
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 7 * max(cap, 1))
        defer { buffer.deallocate() }
        let bs = buffer
        let ps = buffer + cap
        let gxs = ps + cap
        let gys = gxs + cap
        let xs = gys + cap
        let ys = xs + cap
        let ws = ys + cap
        let pw = probe.width
        let ph = probe.height
        let maxU = Float(pw - 1)
        let maxV = Float(ph - 1)
        for _ in 0..<iterations {
            var cnt = 0
            probe.data.withUnsafeBufferPointer { p in
                gx.data.withUnsafeBufferPointer { gxp in
                    gy.data.withUnsafeBufferPointer { gyp in
                        base.data.withUnsafeBufferPointer { b in
                            for k in 0..<cap {
                                let x = Int(gridX[k])
                                let y = Int(gridY[k])
                                let (u, v) = warp.apply(Float(x), Float(y))
                                guard u >= 0 && v >= 0 && u <= maxU && v <= maxV else { continue }
                                ws[cnt] = gridW[k]
                                bs[cnt] = b[y * base.width + x]
                                let at = Bilinear(pw, ph, u, v)
                                ps[cnt] = at.value(p)
                                gxs[cnt] = at.value(gxp)
                                gys[cnt] = at.value(gyp)
                                xs[cnt] = Float(x) - warp.cx
                                ys[cnt] = Float(y) - warp.cy
                                cnt += 1
                            }
                        }
                    }
                }
            }
            if cnt < 16 { break }
            // Photometric gain/offset: base ~ alpha * probe + beta.
            var mp: Double = 0
            var mb: Double = 0
            for i in 0..<cnt {
                mp += Double(ps[i])
                mb += Double(bs[i])
            }
            mp /= Double(cnt)
            mb /= Double(cnt)
            var spp: Double = 0
            var spb: Double = 0
            for i in 0..<cnt {
                let dp = Double(ps[i]) - mp
                spp += dp * dp
                spb += dp * (Double(bs[i]) - mb)
            }
            if spp < 1e-12 { break }
            let alpha = Float(spb / spp)
            if alpha <= 0.05 { break }
            let beta = Float(mb) - alpha * Float(mp)
            // Huber weights beyond 2 robust sigmas: a new spot or a local change must not drag the global warp.
            // (Robust sigma from the mean absolute residual, 1.25 * MAE for Gaussian noise: no sort needed.)
            var sumAbs: Double = 0
            for i in 0..<cnt { sumAbs += Double(abs(bs[i] - (alpha * ps[i] + beta))) }
            let huber = max(2 * 1.25 * sumAbs / Double(cnt), 1e-5)
            if let prior = perspective {
                guard
                    let next = projectiveStep(
                        warp, prior: prior, count: cnt, bs: bs, ps: ps, gxs: gxs, gys: gys, xs: xs, ys: ys,
                        ws: ws, alpha: alpha, beta: beta, huber: huber)
                else { break }
                let moved = max(abs(next.tx - warp.tx), abs(next.ty - warp.ty))
                warp = next
                if warp.scale < 0.5 || warp.scale > 2 || warp.keystone(radius: prior.radius) > 0.3 {
                    warp = start
                    break
                }
                if moved < 0.005 { break }
                continue
            }
            var h = [Double](repeating: 0, count: 16)
            var g = [Double](repeating: 0, count: 4)
            for i in 0..<cnt {
                let e0 = Double(bs[i] - (alpha * ps[i] + beta))
                let wgt = (abs(e0) <= huber ? 1 : huber / abs(e0)) * Double(ws[i])
                let e = e0 * wgt
                let ax = Double(alpha * gxs[i])
                let ay = Double(alpha * gys[i])
                let xr = Double(xs[i])
                let yr = Double(ys[i])
                let j0 = ax * xr + ay * yr
                let j1 = -ax * yr + ay * xr
                let j2 = ax
                let j3 = ay
                g[0] += j0 * e
                g[1] += j1 * e
                g[2] += j2 * e
                g[3] += j3 * e
                h[0] += wgt * j0 * j0
                h[1] += wgt * j0 * j1
                h[2] += wgt * j0 * j2
                h[3] += wgt * j0 * j3
                h[5] += wgt * j1 * j1
                h[6] += wgt * j1 * j2
                h[7] += wgt * j1 * j3
                h[10] += wgt * j2 * j2
                h[11] += wgt * j2 * j3
                h[15] += wgt * j3 * j3
            }
            for r in 0..<4 { for c in 0..<r { h[r * 4 + c] = h[c * 4 + r] } }
            // A touch of damping keeps the step sane on flat images.
            for r in 0..<4 {
                h[r * 4 + r] *= 1.0001
                h[r * 4 + r] += 1e-9
            }
            guard let d = solveLinear(h, g, n: 4) else { break }
            warp.a += Float(d[0])
            warp.b += Float(d[1])
            warp.tx += Float(d[2])
            warp.ty += Float(d[3])
            if abs(d[2]) < 0.005 && abs(d[3]) < 0.005 && abs(d[0]) < 1e-5 && abs(d[1]) < 1e-5 { break }
            if warp.scale < 0.5 || warp.scale > 2 {
                warp = start
                break
            }
        }
        return warp
    }

    /// One Gauss-Newton step of all eight parameters of `warp` (see `Warp`) on the collected samples, with the prior
    /// on the stretch, shear and perspective parameters; nil when the system is singular.
    static func projectiveStep(
        _ warp: Warp, prior: PerspectivePrior, count cnt: Int, bs: UnsafeMutablePointer<Float>, ps: UnsafeMutablePointer<Float>,
        gxs: UnsafeMutablePointer<Float>, gys: UnsafeMutablePointer<Float>, xs: UnsafeMutablePointer<Float>,
        ys: UnsafeMutablePointer<Float>, ws: UnsafeMutablePointer<Float>, alpha: Float, beta: Float, huber: Double
    ) -> Warp? {
        let n = 8
        let r = Double(prior.radius)
        var hm = [Double](repeating: 0, count: n * n)
        var gv = [Double](repeating: 0, count: n)
        var j = [Double](repeating: 0, count: n)
        var sumW: Double = 0
        var sumWE2: Double = 0
        let sumAE = Double(warp.a + warp.e)
        let diffFB = Double(warp.f - warp.b)
        let sumBF = Double(warp.b + warp.f)
        let diffAE = Double(warp.a - warp.e)
        for i in 0..<cnt {
            let e0 = Double(bs[i] - (alpha * ps[i] + beta))
            let wgt = (abs(e0) <= huber ? 1 : huber / abs(e0)) * Double(ws[i])
            let ax = Double(alpha * gxs[i])
            let ay = Double(alpha * gys[i])
            let xr = Double(xs[i])
            let yr = Double(ys[i])
            let id = 1 / max(0.2, 1 + Double(warp.g) * xr + Double(warp.h) * yr)
            let u = (sumAE * xr + diffFB * yr) * id
            let v = (sumBF * xr + diffAE * yr) * id
            // d(x', y') / d(a, b, tx, ty, e, f, g*r, h*r), each dotted with the probe's gradient.
            j[0] = (ax * xr + ay * yr) * id
            j[1] = (-ax * yr + ay * xr) * id
            j[2] = ax
            j[3] = ay
            j[4] = (ax * xr - ay * yr) * id
            j[5] = (ax * yr + ay * xr) * id
            j[6] = -(ax * u + ay * v) * xr * id / r
            j[7] = -(ax * u + ay * v) * yr * id / r
            let e = e0 * wgt
            for p in 0..<n {
                gv[p] += j[p] * e
                for q in p..<n { hm[p * n + q] += wgt * j[p] * j[q] }
            }
            sumW += Double(ws[i])
            sumWE2 += Double(ws[i]) * min(e0 * e0, huber * huber)
        }
        for p in 0..<n { for q in 0..<p { hm[p * n + q] = hm[q * n + p] } }
        // Prior: residual variance over the parameter's variance, counted once per `samplesPerDatum` samples.
        let noise = max(sumWE2 / max(sumW, 1e-9), 1e-10) * Double(prior.samplesPerDatum)
        let theta = [Double(warp.e), Double(warp.f), Double(warp.g) * r, Double(warp.h) * r]
        let sds = [prior.affineSD, prior.affineSD, prior.perspectiveSD, prior.perspectiveSD].map(Double.init)
        for k in 0..<4 {
            let lambda = noise / (sds[k] * sds[k])
            hm[(k + 4) * n + k + 4] += lambda
            gv[k + 4] -= lambda * theta[k]
        }
        for p in 0..<n {
            hm[p * n + p] *= 1.0001
            hm[p * n + p] += 1e-9
        }
        guard let d = solveLinear(hm, gv, n: n) else { return nil }
        var w = warp
        w.a += Float(d[0])
        w.b += Float(d[1])
        w.tx += Float(d[2])
        w.ty += Float(d[3])
        w.e += Float(d[4])
        w.f += Float(d[5])
        w.g += Float(d[6] / r)
        w.h += Float(d[7] / r)
        return w
    }

    /// Rotation/scale grid of the normal coarse search: 0.92...1.08 and +-8 degrees (15 pairs).
    static let normalGrid = (scales: [Float(0.92), 1, 1.08], degrees: [Float(-8), -4, 0, 4, 8])
    /// Rotation/scale grid of the wide fallback search, run only when the normal alignment fails the "not comparable"
    /// gate: scale 0.8...1.25 in 5 log-spaced steps (about 11.8% apart) and +-20 degrees in 5-degree steps (45 pairs;
    /// at the coarsest level a half step moves the crop's corners by about one pixel, which the refinement absorbs).
    static let wideGrid = (
        scales: (0...4).map { Float(0.8 * pow(1.25 / 0.8, Double($0) / 4)) },
        degrees: stride(from: Float(-20), through: 20, by: 5).map { $0 }
    )

    /// Coarse search at the coarsest level: every rotation/scale pair of the grid on a 4 px translation grid, then
    /// the best `keep` pairs (best first) each on a 1 px grid around their best translation. With the normal grid
    /// that is about 400 correlations instead of 1200.
    static func coarseSearch(
        base: Plane, probe: Plane, cx: Float, cy: Float, probeCX: Float, probeCY: Float,
        scales: [Float] = normalGrid.scales, degrees: [Float] = normalGrid.degrees,
        keep: Int = 1
    ) -> [Warp] {
        let reach = Int((Float(min(base.width, base.height)) * 0.14).rounded())
        func make(_ scale: Float, _ deg: Float, _ dx: Int, _ dy: Int) -> Warp {
            let r = deg * .pi / 180
            return Warp(a: scale * cosf(r), b: scale * sinf(r), tx: probeCX + Float(dx), ty: probeCY + Float(dy), cx: cx, cy: cy)
        }
        // Best translation and score of each rotation/scale pair, in grid order.
        var perPair: [(score: Float, scale: Float, deg: Float, dx: Int, dy: Int)] = []
        for scale in scales {
            for deg in degrees {
                var best: (score: Float, scale: Float, deg: Float, dx: Int, dy: Int) = (-2, scale, deg, 0, 0)
                for dy in stride(from: -reach, through: reach, by: 4) {
                    for dx in stride(from: -reach, through: reach, by: 4) {
                        let c = correlation(base: base, probe: probe, warp: make(scale, deg, dx, dy), fraction: 0.6, stride: 2)
                        if c > best.score { best = (c, scale, deg, dx, dy) }
                    }
                }
                perPair.append(best)
            }
        }
        // Stable order: equal scores keep grid order, as the single-best search always did.
        let ranked = perPair.enumerated().sorted {
            $0.element.score > $1.element.score || ($0.element.score == $1.element.score && $0.offset < $1.offset)
        }
        var out: [(Float, Warp)] = []
        for (_, p) in ranked.prefix(max(1, keep)) {
            var bestScore = p.score
            var best = make(p.scale, p.deg, p.dx, p.dy)
            for dy in stride(from: p.dy - 3, through: p.dy + 3, by: 1) {
                for dx in stride(from: p.dx - 3, through: p.dx + 3, by: 1) where !(dx == p.dx && dy == p.dy) {
                    let s = make(p.scale, p.deg, dx, dy)
                    let c = correlation(base: base, probe: probe, warp: s, fraction: 0.6, stride: 2)
                    if c > bestScore {
                        bestScore = c
                        best = s
                    }
                }
            }
            out.append((bestScore, best))
        }
        return out.map { $0.1 }
    }
}

/// Weights of the intensity alignment per tile of a grid laid over the whole baseline (row-major, values 0...1):
/// tiles where the photos do not agree (a change, a background at the frame's edge) are left out of the estimate.
struct TileWeights {
    /// Side of the tiled central square relative to the shorter side.
    var fraction: Float
    var tiles: Int
    var values: [Float]

    @inline(__always) func weight(x: Int, y: Int, width: Int, height: Int) -> Float {
        let side = Float(min(width, height)) * fraction
        let x0 = (Float(width) - side) / 2
        let y0 = (Float(height) - side) / 2
        let tx = Int((Float(x) - x0) / side * Float(tiles))
        let ty = Int((Float(y) - y0) / side * Float(tiles))
        guard tx >= 0, ty >= 0, tx < tiles, ty < tiles else { return 0 }
        return values[ty * tiles + tx]
    }
}
