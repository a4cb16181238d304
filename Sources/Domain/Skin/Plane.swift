import CairnCore
import Foundation

/// A single-channel float image, row-major. Internal working type of the comparison engine.
struct Plane: Sendable {
    var width: Int
    var height: Int
    var data: [Float]

    init(width: Int, height: Int, data: [Float]) {
        precondition(data.count == width * height)
        self.width = width
        self.height = height
        self.data = data
    }

    init(width: Int, height: Int, value: Float = 0) {
        self.init(width: width, height: height, data: [Float](repeating: value, count: width * height))
    }

    @inline(__always) subscript(x: Int, y: Int) -> Float {
        get { data[y * width + x] }
        set { data[y * width + x] = newValue }
    }

    /// Bilinear sample with clamp-to-edge; `x`, `y` in pixel-centre coordinates (0 = centre of first pixel).
    @inline(__always) func sample(_ x: Float, _ y: Float) -> Float {
        data.withUnsafeBufferPointer { Plane.sample($0, width, height, x, y) }
    }

    @inline(__always) static func sample(_ p: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, _ x: Float, _ y: Float) -> Float {
        Bilinear(w, h, x, y).value(p)
    }

    /// Separable Gaussian blur (clamp-to-edge) with standard deviation `sigma` in pixels.
    func gaussianBlurred(sigma: Float) -> Plane {
        if sigma < 0.2 { return self }
        let radius = max(1, Int((sigma * 3).rounded(.up)))
        var kernel = [Float](repeating: 0, count: 2 * radius + 1)
        var total: Float = 0
        for i in -radius...radius {
            let v = expf(-Float(i * i) / (2 * sigma * sigma))
            kernel[i + radius] = v
            total += v
        }
        for i in kernel.indices { kernel[i] /= total }
        return convolvedSeparable(kernel: kernel)
    }

    /// Box mean over a (2r+1)^2 window, clamp-to-edge.
    func boxBlurred(radius r: Int) -> Plane {
        if r <= 0 { return self }
        let w = width
        let h = height
        let inv = 1 / Float(2 * r + 1)
        var tmp = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        data.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                // Four rows at a time: each row's running sum is a serial chain of additions, so interleaving rows
                // keeps the adder busy. Same arithmetic, in the same order, as one row at a time.
                var y = 0
                while y < h {
                    let rows = min(4, h - y)
                    for q in 0..<rows {
                        let row = (y + q) * w
                        var acc: Float = 0
                        for i in -r...r { acc += s[row + min(max(i, 0), w - 1)] }
                        t[row] = acc
                    }
                    if rows == 4 {
                        let t0 = t.baseAddress! + y * w
                        let t1 = t0 + w
                        let t2 = t1 + w
                        let t3 = t2 + w
                        let s0 = s.baseAddress! + y * w
                        let s1 = s0 + w
                        let s2 = s1 + w
                        let s3 = s2 + w
                        var a0 = t0[0]
                        var a1 = t1[0]
                        var a2 = t2[0]
                        var a3 = t3[0]
                        for x in 0..<w {
                            let hi = min(x &+ r &+ 1, w &- 1)
                            let lo = max(x &- r, 0)
                            t0[x] = a0 * inv
                            t1[x] = a1 * inv
                            t2[x] = a2 * inv
                            t3[x] = a3 * inv
                            a0 += s0[hi] - s0[lo]
                            a1 += s1[hi] - s1[lo]
                            a2 += s2[hi] - s2[lo]
                            a3 += s3[hi] - s3[lo]
                        }
                    } else {
                        for q in 0..<rows {
                            let row = (y + q) * w
                            var acc = t[row]
                            for x in 0..<w {
                                t[row + x] = acc * inv
                                acc += s[row + min(x + r + 1, w - 1)] - s[row + max(x - r, 0)]
                            }
                        }
                    }
                    y += rows
                }
            }
        }
        // Vertical pass row by row (cache friendly): a running sum per column.
        var acc = [Float](repeating: 0, count: w)
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                acc.withUnsafeMutableBufferPointer { a in
                    for i in -r...r {
                        let row = min(max(i, 0), h - 1) * w
                        for x in 0..<w { a[x] += t[row + x] }
                    }
                    let ab = a.baseAddress!
                    let tb = t.baseAddress!
                    for y in 0..<h {
                        // Row pointers keep the inner loop free of index arithmetic, so it vectorises.
                        let oRow = o.baseAddress! + y * w
                        let tAdd = tb + min(y + r + 1, h - 1) * w
                        let tSub = tb + max(y - r, 0) * w
                        for x in 0..<w {
                            oRow[x] = ab[x] * inv
                            ab[x] += tAdd[x] - tSub[x]
                        }
                    }
                }
            }
        }
        return Plane(width: w, height: h, data: out)
    }

    /// The plane minus its box mean of radius `r` applied `passes` times: detail without shading.
    func highPassed(radius r: Int, passes: Int) -> Plane {
        var lo = self
        for _ in 0..<passes { lo = lo.boxBlurred(radius: r) }
        var out = self
        for i in out.data.indices { out.data[i] -= lo.data[i] }
        return out
    }

    func convolvedSeparable(kernel: [Float]) -> Plane {
        let r = kernel.count / 2
        let w = width
        let h = height
        var tmp = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        data.withUnsafeBufferPointer { src in
            kernel.withUnsafeBufferPointer { k in
                tmp.withUnsafeMutableBufferPointer { t in
                    for y in 0..<h {
                        let row = y * w
                        for x in 0..<w {
                            var s: Float = 0
                            if x >= r && x < w - r {
                                for i in 0..<k.count { s += k[i] * src[row + x - r + i] }
                            } else {
                                for i in 0..<k.count {
                                    let xx = min(max(x - r + i, 0), w - 1)
                                    s += k[i] * src[row + xx]
                                }
                            }
                            t[row + x] = s
                        }
                    }
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            kernel.withUnsafeBufferPointer { k in
                out.withUnsafeMutableBufferPointer { o in
                    for y in 0..<h {
                        for x in 0..<w {
                            var s: Float = 0
                            if y >= r && y < h - r {
                                for i in 0..<k.count { s += k[i] * t[(y - r + i) * w + x] }
                            } else {
                                for i in 0..<k.count {
                                    let yy = min(max(y - r + i, 0), h - 1)
                                    s += k[i] * t[yy * w + x]
                                }
                            }
                            o[y * w + x] = s
                        }
                    }
                }
            }
        }
        return Plane(width: w, height: h, data: out)
    }

    /// Halves the size with a 2x2 mean (after a light blur), for pyramids.
    func halved() -> Plane {
        let w2 = max(1, width / 2)
        let h2 = max(1, height / 2)
        var out = [Float](repeating: 0, count: w2 * h2)
        data.withUnsafeBufferPointer { s in
            for y in 0..<h2 {
                let y0 = min(2 * y, height - 1)
                let y1 = min(2 * y + 1, height - 1)
                for x in 0..<w2 {
                    let x0 = min(2 * x, width - 1)
                    let x1 = min(2 * x + 1, width - 1)
                    out[y * w2 + x] = 0.25 * (s[y0 * width + x0] + s[y0 * width + x1] + s[y1 * width + x0] + s[y1 * width + x1])
                }
            }
        }
        return Plane(width: w2, height: h2, data: out)
    }

    /// Value at quantile `q` (0...1) of the given values (copying and partially sorting).
    static func quantile(_ values: [Float], _ q: Double) -> Float {
        guard !values.isEmpty else { return 0 }
        var v = values
        let k = min(v.count - 1, max(0, Int((Double(v.count - 1) * q).rounded())))
        return quickSelect(&v, k)
    }

    /// Values at several quantiles of the same values, from one copy (the same values `quantile` gives one by one).
    static func quantiles(_ values: [Float], _ qs: [Double]) -> [Float] {
        guard !values.isEmpty else { return qs.map { _ in 0 } }
        var v = values
        return qs.map { q in quickSelect(&v, min(v.count - 1, max(0, Int((Double(v.count - 1) * q).rounded())))) }
    }

    static func quickSelect(_ v: inout [Float], _ k: Int) -> Float {
        var lo = 0
        var hi = v.count - 1
        v.withUnsafeMutableBufferPointer { a in
            while lo < hi {
                let pivot = a[(lo + hi) / 2]
                var i = lo
                var j = hi
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while a[j] > pivot { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if k <= j { hi = j } else if k >= i { lo = i } else { break }
            }
        }
        return v[k]
    }
}

/// Three float planes (sRGB, 0...1) of one photo at working resolution.
struct ColorPlanes: Sendable {
    var r: Plane
    var g: Plane
    var b: Plane
    var width: Int { r.width }
    var height: Int { r.height }

    /// Rec. 601 luma of the sRGB values, 0...1.
    var luma: Plane {
        var out = [Float](repeating: 0, count: r.data.count)
        for i in out.indices { out[i] = 0.299 * r.data[i] + 0.587 * g.data[i] + 0.114 * b.data[i] }
        return Plane(width: width, height: height, data: out)
    }

    /// Resamples an 8-bit image so that its shorter side is `shortSide` pixels: an integer box
    /// reduction first (anti-aliasing), then bilinear to the exact size.
    static func resampled(_ image: RGBImage, shortSide: Int) -> ColorPlanes {
        let minSide = min(image.width, image.height)
        let factor = Double(minSide) / Double(shortSide)
        let k = max(1, Int(factor.rounded(.down)))
        let bw = max(1, image.width / k)
        let bh = max(1, image.height / k)
        var r = [Float](repeating: 0, count: bw * bh)
        var g = r
        var b = r
        let inv = 1 / (255 * Float(k * k))
        let iw = image.width
        image.pixels.withUnsafeBufferPointer { px in
            r.withUnsafeMutableBufferPointer { ro in
                g.withUnsafeMutableBufferPointer { go in
                    b.withUnsafeMutableBufferPointer { bo in
                        for y in 0..<bh {
                            for x in 0..<bw {
                                var sr: UInt32 = 0
                                var sg: UInt32 = 0
                                var sb: UInt32 = 0
                                for yy in (y * k)..<(y * k + k) {
                                    var o = (yy * iw + x * k) * 3
                                    for _ in 0..<k {
                                        sr += UInt32(px[o])
                                        sg += UInt32(px[o + 1])
                                        sb += UInt32(px[o + 2])
                                        o += 3
                                    }
                                }
                                ro[y * bw + x] = Float(sr) * inv
                                go[y * bw + x] = Float(sg) * inv
                                bo[y * bw + x] = Float(sb) * inv
                            }
                        }
                    }
                }
            }
        }
        var cp = ColorPlanes(
            r: Plane(width: bw, height: bh, data: r), g: Plane(width: bw, height: bh, data: g),
            b: Plane(width: bw, height: bh, data: b))
        let scale = Double(shortSide) / Double(min(bw, bh))
        if abs(scale - 1) > 1e-3 {
            let tw = max(1, Int((Double(bw) * scale).rounded()))
            let th = max(1, Int((Double(bh) * scale).rounded()))
            cp = ColorPlanes(
                r: cp.r.resized(width: tw, height: th), g: cp.g.resized(width: tw, height: th),
                b: cp.b.resized(width: tw, height: th))
        }
        return cp
    }
}

extension Plane {
    /// Bilinear resize to an exact size (pixel-centre aligned); the same values as `sample` at each pixel centre.
    func resized(width tw: Int, height th: Int) -> Plane {
        var out = [Float](repeating: 0, count: tw * th)
        let sx = Float(width) / Float(tw)
        let sy = Float(height) / Float(th)
        let cols = (0..<tw).map { Bilinear(width, height, (Float($0) + 0.5) * sx - 0.5, 0) }
        data.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<th {
                    let rowWeights = Bilinear(width, height, 0, (Float(y) + 0.5) * sy - 0.5)
                    for x in 0..<tw {
                        o[y * tw + x] = Bilinear(column: cols[x], row: rowWeights).value(p)
                    }
                }
            }
        }
        return Plane(width: tw, height: th, data: out)
    }
}

/// The four neighbours and weights of one bilinear sample with clamp-to-edge, in pixel-centre coordinates (0 = centre
/// of the first pixel). Computing it once serves every plane of the same size sampled at that point.
struct Bilinear {
    let i00: Int, i01: Int, i10: Int, i11: Int
    let fx: Float, fy: Float

    @inline(__always) init(_ w: Int, _ h: Int, _ x: Float, _ y: Float) {
        let xc = min(max(x, 0), Float(w - 1))
        let yc = min(max(y, 0), Float(h - 1))
        let x0 = min(Int(xc), w - 2 < 0 ? 0 : w - 2)
        let y0 = min(Int(yc), h - 2 < 0 ? 0 : h - 2)
        let x1 = min(x0 + 1, w - 1)
        let y1 = min(y0 + 1, h - 1)
        fx = xc - Float(x0)
        fy = yc - Float(y0)
        i00 = y0 * w + x0
        i01 = y0 * w + x1
        i10 = y1 * w + x0
        i11 = y1 * w + x1
    }

    /// The columns of `column` (made at y = 0) with the rows of `row` (made at x = 0), for the same plane.
    @inline(__always) init(column c: Bilinear, row r: Bilinear) {
        let x0 = c.i00
        let x1 = c.i01
        let y0 = r.i00
        let y1 = r.i10
        i00 = y0 + x0
        i01 = y0 + x1
        i10 = y1 + x0
        i11 = y1 + x1
        fx = c.fx
        fy = r.fy
    }

    @inline(__always) func value(_ p: UnsafeBufferPointer<Float>) -> Float {
        let a = p[i00]
        let b = p[i01]
        let c = p[i10]
        let d = p[i11]
        let top = a + (b - a) * fx
        let bottom = c + (d - c) * fx
        return top + (bottom - top) * fy
    }
}
