import CairnCore

/// Pixel helpers the cascade needs: area-average downscaling, cropping and a grayscale test. Pure Swift.
enum Sampling {
    /// A copy whose longer side is at most `longSide`, averaging each source block (box filter), and the
    /// factor to multiply its coordinates by to get back to `image`'s. Returns `image` itself when small.
    static func downscaled(_ image: RGBImage, longSide: Int) -> (image: RGBImage, scale: Double) {
        let long = max(image.width, image.height)
        guard longSide > 0, long > longSide else { return (image, 1) }
        let factor = Double(long) / Double(longSide)
        let outW = max(1, Int((Double(image.width) / factor).rounded()))
        let outH = max(1, Int((Double(image.height) / factor).rounded()))
        let sx = Double(image.width) / Double(outW)
        let sy = Double(image.height) / Double(outH)
        var xStarts = [Int](repeating: 0, count: outW + 1)
        for ox in 0...outW { xStarts[ox] = min(image.width, Int((Double(ox) * sx).rounded())) }
        var out = [UInt8](repeating: 0, count: outW * outH * 3)
        let srcW = image.width
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var sums = [UInt32](repeating: 0, count: outW * 3)
                for oy in 0..<outH {
                    let y0 = min(image.height - 1, Int((Double(oy) * sy).rounded()))
                    let y1 = max(y0 + 1, min(image.height, Int((Double(oy + 1) * sy).rounded())))
                    for i in 0..<sums.count { sums[i] = 0 }
                    for y in y0..<y1 {
                        let row = y * srcW * 3
                        for ox in 0..<outW {
                            var r: UInt32 = 0
                            var g: UInt32 = 0
                            var b: UInt32 = 0
                            var i = row + xStarts[ox] * 3
                            let end = row + max(xStarts[ox] + 1, xStarts[ox + 1]) * 3
                            while i < end {
                                r &+= UInt32(src[i])
                                g &+= UInt32(src[i + 1])
                                b &+= UInt32(src[i + 2])
                                i += 3
                            }
                            sums[ox * 3] &+= r
                            sums[ox * 3 + 1] &+= g
                            sums[ox * 3 + 2] &+= b
                        }
                    }
                    for ox in 0..<outW {
                        let count = UInt32((y1 - y0) * max(1, xStarts[ox + 1] - xStarts[ox]))
                        let o = (oy * outW + ox) * 3
                        dst[o] = UInt8((sums[ox * 3] + count / 2) / count)
                        dst[o + 1] = UInt8((sums[ox * 3 + 1] + count / 2) / count)
                        dst[o + 2] = UInt8((sums[ox * 3 + 2] + count / 2) / count)
                    }
                }
            }
        }
        return (RGBImage(width: outW, height: outH, pixels: out), Double(image.width) / Double(outW))
    }

    /// The part of `image` inside `rect` (clipped to the image), or `nil` when that is empty.
    static func cropped(_ image: RGBImage, to rect: PixelRect) -> (image: RGBImage, originX: Int, originY: Int)? {
        let left = max(0, Int(rect.x.rounded(.down)))
        let top = max(0, Int(rect.y.rounded(.down)))
        let right = min(image.width, Int(rect.maxX.rounded(.up)))
        let bottom = min(image.height, Int(rect.maxY.rounded(.up)))
        guard right > left, bottom > top else { return nil }
        let w = right - left
        let h = bottom - top
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let s = image.offset(x: left, y: top + y)
            out.replaceSubrange(y * w * 3..<(y + 1) * w * 3, with: image.pixels[s..<s + w * 3])
        }
        return (RGBImage(width: w, height: h, pixels: out), left, top)
    }

    /// Whether the image carries no colour: at least 99% of sampled pixels have channels within
    /// `tolerance` of each other (a grayscale photo stored as RGB, or a sepia-free black-and-white scan).
    static func isGrayscale(_ image: RGBImage, tolerance: Int = 6) -> Bool {
        let total = image.width * image.height
        let step = max(1, total / 40_000)
        var coloured = 0
        var sampled = 0
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < total {
                let o = i * 3
                let r = Int(p[o])
                let g = Int(p[o + 1])
                let b = Int(p[o + 2])
                if max(abs(r - g), abs(g - b), abs(r - b)) > tolerance { coloured += 1 }
                sampled += 1
                i += step
            }
        }
        return coloured * 100 <= sampled
    }

    /// `image` turned a quarter: `clockwise` (its left edge becomes the top) or counter-clockwise.
    static func quarterTurned(_ image: RGBImage, clockwise: Bool) -> RGBImage {
        let w = image.width
        let h = image.height
        var out = [UInt8](repeating: 0, count: w * h * 3)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                // The turned image is h wide and w tall; (tx, ty) in it comes from (x, y) in `image`.
                for ty in 0..<w {
                    for tx in 0..<h {
                        let x = clockwise ? ty : w - 1 - ty
                        let y = clockwise ? h - 1 - tx : tx
                        let from = (y * w + x) * 3
                        let to = (ty * h + tx) * 3
                        dst[to] = src[from]
                        dst[to + 1] = src[from + 1]
                        dst[to + 2] = src[from + 2]
                    }
                }
            }
        }
        return RGBImage(width: h, height: w, pixels: out)
    }
}
