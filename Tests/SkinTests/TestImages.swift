import CairnCore
import Foundation

/// Seeded skin-like test images for the Skin tests: a tone with soft shading, pores and freckles.
enum TestImages {
    /// Unit-interval draws from the shared seeded generator.
    struct Rng {
        private var generator: SeededGenerator
        init(state: UInt64) { generator = SeededGenerator(seed: state) }
        mutating func next() -> Double { generator.unit() }
    }

    /// A float RGB scene, side x side, values 0...1.
    static func scene(seed: UInt64, side: Int = 360) -> [Float] {
        var rng = Rng(state: seed)
        var px = [Float](repeating: 0, count: side * side * 3)
        let tone: (Float, Float, Float) = (Float(0.7 + 0.2 * rng.next()), Float(0.5 + 0.15 * rng.next()), Float(0.4 + 0.1 * rng.next()))
        let fx = rng.next() * 0.03 + 0.01
        let fy = rng.next() * 0.03 + 0.01
        for y in 0..<side {
            for x in 0..<side {
                let shade = Float(1 + 0.06 * sin(Double(x) * fx) * cos(Double(y) * fy))
                let i = (y * side + x) * 3
                px[i] = tone.0 * shade
                px[i + 1] = tone.1 * shade
                px[i + 2] = tone.2 * shade
            }
        }
        for _ in 0..<(side * side / 70) {
            disc(
                &px, side: side, cx: rng.next() * Double(side), cy: rng.next() * Double(side), r: 0.6 + rng.next(), k: Float(0.8 + 0.12 * rng.next()))
        }
        for _ in 0..<20 {
            disc(
                &px, side: side, cx: rng.next() * Double(side), cy: rng.next() * Double(side), r: 2 + 3 * rng.next(), k: Float(0.6 + 0.2 * rng.next())
            )
        }
        return px
    }

    static func disc(_ px: inout [Float], side: Int, cx: Double, cy: Double, r: Double, k: Float) {
        let lo = max(0, Int(cy - r - 2))
        let hi = min(side - 1, Int(cy + r + 2))
        let lx = max(0, Int(cx - r - 2))
        let hx = min(side - 1, Int(cx + r + 2))
        guard lo <= hi, lx <= hx else { return }
        for y in lo...hi {
            for x in lx...hx {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                let cov = Float(min(1, max(0, r + 0.7 - d)))
                let i = (y * side + x) * 3
                px[i] *= 1 - cov * (1 - k)
                px[i + 1] *= 1 - cov * (1 - k * 0.9)
                px[i + 2] *= 1 - cov * (1 - k * 0.85)
            }
        }
    }

    /// A `view` x `view` photo of the scene: rotated (degrees), scaled and shifted (fraction of the view) about
    /// the centre, with an exposure gain.
    static func photo(
        _ scene: [Float], side: Int = 360, view: Int = 240, shiftX: Double = 0, shiftY: Double = 0,
        rotation: Double = 0, scale: Double = 1, gain: Float = 1
    ) -> RGBImage {
        var out = [UInt8](repeating: 0, count: view * view * 3)
        let c = Double(view - 1) / 2
        let sc = Double(side - 1) / 2
        let a = cos(rotation * .pi / 180) / scale
        let b = sin(rotation * .pi / 180) / scale
        for y in 0..<view {
            for x in 0..<view {
                let xr = Double(x) - c
                let yr = Double(y) - c
                let u = a * xr - b * yr + sc + shiftX * Double(view)
                let v = b * xr + a * yr + sc + shiftY * Double(view)
                let x0 = min(max(Int(u), 0), side - 2)
                let y0 = min(max(Int(v), 0), side - 2)
                let tx = Float(min(max(u - Double(x0), 0), 1))
                let ty = Float(min(max(v - Double(y0), 0), 1))
                for ch in 0..<3 {
                    let p00 = scene[(y0 * side + x0) * 3 + ch]
                    let p01 = scene[(y0 * side + x0 + 1) * 3 + ch]
                    let p10 = scene[((y0 + 1) * side + x0) * 3 + ch]
                    let p11 = scene[((y0 + 1) * side + x0 + 1) * 3 + ch]
                    let v = ((p00 * (1 - tx) + p01 * tx) * (1 - ty) + (p10 * (1 - tx) + p11 * tx) * ty) * gain
                    out[(y * view + x) * 3 + ch] = UInt8(min(max(v * 255, 0), 255).rounded())
                }
            }
        }
        return RGBImage(width: view, height: view, pixels: out)
    }

    /// Box-blurs an image (radius r) `passes` times.
    static func blurred(_ img: RGBImage, radius r: Int, passes: Int = 2) -> RGBImage {
        var px = img.pixels.map { Float($0) }
        let w = img.width
        let h = img.height
        for _ in 0..<passes {
            var out = px
            for y in 0..<h {
                for x in 0..<w {
                    for ch in 0..<3 {
                        var s: Float = 0
                        var n: Float = 0
                        for dy in -r...r {
                            for dx in -r...r {
                                let xx = min(max(x + dx, 0), w - 1)
                                let yy = min(max(y + dy, 0), h - 1)
                                s += px[(yy * w + xx) * 3 + ch]
                                n += 1
                            }
                        }
                        out[(y * w + x) * 3 + ch] = s / n
                    }
                }
            }
            px = out
        }
        return RGBImage(width: w, height: h, pixels: px.map { UInt8(min(max($0, 0), 255).rounded()) })
    }
}

extension TestImages {
    /// The image with seeded uniform noise of +-`amplitude` (8-bit units) added to every channel.
    static func noisy(_ img: RGBImage, amplitude: Double, seed: UInt64) -> RGBImage {
        var rng = Rng(state: seed)
        let px = img.pixels.map { UInt8(min(max(Double($0) + amplitude * (2 * rng.next() - 1), 0), 255).rounded()) }
        return RGBImage(width: img.width, height: img.height, pixels: px)
    }
}
