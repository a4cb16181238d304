import CairnCore
import Foundation

/// The grown-spot case of issue 18, rendered reproducibly for the tests, the bench and the compare-page screenshot:
/// a dark spot on smooth, skin-toned texture, photographed twice from the same distance. Between the photos the
/// spot keeps its radius (an unchanged retake) or grows (40 px to 52 px is the case a user reported as "91% similar").
/// Every retake differs a little, as a hand-held phone does: a shift of a few pixels, a turn of up to 2 degrees, an
/// exposure change of a few percent and fresh sensor noise; the scale stays 1, since the distance is the same.
public enum SpotSample {
    /// Side of the rendered photo, pixels.
    public static let side = 320

    /// One photo: the spot (radius `spotRadius` px, `offset` px from the centre of the scene: at the centre unless
    /// given) on the skin texture, retake `retake` (0 = the baseline itself, without any shift, turn or exposure
    /// change; other values draw a seeded retake nuisance).
    public static func photo(
        spotRadius: Double, retake: UInt64, textureSeed: UInt64 = 18, offset: (x: Double, y: Double) = (0, 0)
    ) -> RGBImage {
        var rng = SeededGenerator(seed: 0x5B07_0000 &+ retake &* 7919)
        func u(_ r: Double) -> Double { (rng.unit() * 2 - 1) * r }
        let shiftX = retake == 0 ? 0 : u(6)
        let shiftY = retake == 0 ? 0 : u(6)
        let turn = retake == 0 ? 0 : u(2) * .pi / 180
        let gain = retake == 0 ? 1 : 1 + u(0.05)
        let texture = Texture(seed: textureSeed)
        var px = [UInt8](repeating: 0, count: side * side * 3)
        let c = Double(side - 1) / 2
        let cosT = cos(turn)
        let sinT = sin(turn)
        for y in 0..<side {
            for x in 0..<side {
                // Scene coordinates of this pixel (scene centre = spot centre).
                let xr = Double(x) - c
                let yr = Double(y) - c
                let sx = cosT * xr - sinT * yr + shiftX
                let sy = sinT * xr + cosT * yr + shiftY
                var (r, g, b) = texture.colour(sx, sy)
                // The spot: dark brown with a soft edge of about 2 px, slightly irregular rim.
                let ox = sx - offset.x
                let oy = sy - offset.y
                let d = (ox * ox + oy * oy).squareRoot()
                let rim = spotRadius * (1 + 0.03 * sin(5 * atan2(oy, ox)))
                let cover = min(1, max(0, (rim - d) / 2.5 + 0.5))
                r = r * (1 - cover) + 0.36 * cover
                g = g * (1 - cover) + 0.22 * cover
                b = b * (1 - cover) + 0.16 * cover
                let i = (y * side + x) * 3
                for (k, v) in [r, g, b].enumerated() {
                    let noisy = v * gain + (retake == 0 ? 0 : (rng.unit() - 0.5) * 2.5 / 255)
                    px[i + k] = UInt8(min(max(noisy * 255, 0), 255).rounded())
                }
            }
        }
        return RGBImage(width: side, height: side, pixels: px)
    }

    /// Smooth skin: a warm tone, slow shading and faint fine grain (value noise on a 6 px lattice).
    struct Texture {
        let lattice: [Double]
        static let cells = 96
        static let cell = 6.0

        init(seed: UInt64) {
            var rng = SeededGenerator(seed: seed)
            lattice = (0..<(Self.cells * Self.cells)).map { _ in rng.unit() * 2 - 1 }
        }

        func grain(_ x: Double, _ y: Double) -> Double {
            let n = Self.cells
            let gx = x / Self.cell + Double(n / 2)
            let gy = y / Self.cell + Double(n / 2)
            let x0 = Int(floor(gx))
            let y0 = Int(floor(gy))
            let tx = gx - Double(x0)
            let ty = gy - Double(y0)
            func at(_ i: Int, _ j: Int) -> Double { lattice[((j % n + n) % n) * n + ((i % n + n) % n)] }
            let sx = tx * tx * (3 - 2 * tx)
            let sy = ty * ty * (3 - 2 * ty)
            let top = at(x0, y0) * (1 - sx) + at(x0 + 1, y0) * sx
            let bottom = at(x0, y0 + 1) * (1 - sx) + at(x0 + 1, y0 + 1) * sx
            return top * (1 - sy) + bottom * sy
        }

        func colour(_ x: Double, _ y: Double) -> (Double, Double, Double) {
            let shade = 1 + 0.04 * sin(x * 0.011 + 0.7) * cos(y * 0.013 - 0.3)
            let g = 1 + 0.035 * grain(x, y) + 0.015 * grain(x * 2.3 + 11, y * 2.3 - 7)
            let k = shade * g
            return (0.80 * k, 0.60 * k, 0.50 * k)
        }
    }
}
