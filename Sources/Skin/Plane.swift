import Foundation
import CairnCore

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
        let xc = min(max(x, 0), Float(w - 1))
        let yc = min(max(y, 0), Float(h - 1))
        let x0 = min(Int(xc), w - 2 < 0 ? 0 : w - 2)
        let y0 = min(Int(yc), h - 2 < 0 ? 0 : h - 2)
        let x1 = min(x0 + 1, w - 1)
        let y1 = min(y0 + 1, h - 1)
        let fx = xc - Float(x0)
        let fy = yc - Float(y0)
        let a = p[y0 * w + x0], b = p[y0 * w + x1], c = p[y1 * w + x0], d = p[y1 * w + x1]
        let top = a + (b - a) * fx
        let bottom = c + (d - c) * fx
        return top + (bottom - top) * fy
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
        let w = width, h = height
        let inv = 1 / Float(2 * r + 1)
        var tmp = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        data.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let row = y * w
                    var acc: Float = 0
                    for i in -r...r { acc += s[row + min(max(i, 0), w - 1)] }
                    for x in 0..<w {
                        t[row + x] = acc * inv
                        acc += s[row + min(x + r + 1, w - 1)] - s[row + max(x - r, 0)]
                    }
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
                    for y in 0..<h {
                        let row = y * w
                        let add = min(y + r + 1, h - 1) * w, sub = max(y - r, 0) * w
                        for x in 0..<w {
                            o[row + x] = a[x] * inv
                            a[x] += t[add + x] - t[sub + x]
                        }
                    }
                }
            }
        }
        return Plane(width: w, height: h, data: out)
    }

    func convolvedSeparable(kernel: [Float]) -> Plane {
        let r = kernel.count / 2
        let w = width, h = height
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
        let w2 = max(1, width / 2), h2 = max(1, height / 2)
        var out = [Float](repeating: 0, count: w2 * h2)
        data.withUnsafeBufferPointer { s in
            for y in 0..<h2 {
                let y0 = min(2 * y, height - 1), y1 = min(2 * y + 1, height - 1)
                for x in 0..<w2 {
                    let x0 = min(2 * x, width - 1), x1 = min(2 * x + 1, width - 1)
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

    static func quickSelect(_ v: inout [Float], _ k: Int) -> Float {
        var lo = 0, hi = v.count - 1
        v.withUnsafeMutableBufferPointer { a in
            while lo < hi {
                let pivot = a[(lo + hi) / 2]
                var i = lo, j = hi
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while a[j] > pivot { j -= 1 }
                    if i <= j { a.swapAt(i, j); i += 1; j -= 1 }
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
        let bw = max(1, image.width / k), bh = max(1, image.height / k)
        var planes = [[Float]](repeating: [Float](repeating: 0, count: bw * bh), count: 3)
        let inv = 1 / (255 * Float(k * k))
        image.pixels.withUnsafeBufferPointer { px in
            for c in 0..<3 {
                planes[c].withUnsafeMutableBufferPointer { out in
                    for y in 0..<bh {
                        for x in 0..<bw {
                            var s: UInt32 = 0
                            for yy in (y * k)..<(y * k + k) {
                                var o = (yy * image.width + x * k) * 3 + c
                                for _ in 0..<k { s += UInt32(px[o]); o += 3 }
                            }
                            out[y * bw + x] = Float(s) * inv
                        }
                    }
                }
            }
        }
        var cp = ColorPlanes(r: Plane(width: bw, height: bh, data: planes[0]),
                             g: Plane(width: bw, height: bh, data: planes[1]),
                             b: Plane(width: bw, height: bh, data: planes[2]))
        let scale = Double(shortSide) / Double(min(bw, bh))
        if abs(scale - 1) > 1e-3 {
            let tw = max(1, Int((Double(bw) * scale).rounded())), th = max(1, Int((Double(bh) * scale).rounded()))
            cp = ColorPlanes(r: cp.r.resized(width: tw, height: th), g: cp.g.resized(width: tw, height: th),
                             b: cp.b.resized(width: tw, height: th))
        }
        return cp
    }
}

extension Plane {
    /// Bilinear resize to an exact size (pixel-centre aligned).
    func resized(width tw: Int, height th: Int) -> Plane {
        var out = [Float](repeating: 0, count: tw * th)
        let sx = Float(width) / Float(tw), sy = Float(height) / Float(th)
        data.withUnsafeBufferPointer { p in
            for y in 0..<th {
                let fy = (Float(y) + 0.5) * sy - 0.5
                for x in 0..<tw {
                    out[y * tw + x] = Plane.sample(p, width, height, (Float(x) + 0.5) * sx - 0.5, fy)
                }
            }
        }
        return Plane(width: tw, height: th, data: out)
    }
}
