import CairnCore
import Foundation
import Imaging

/// Renders made to look like phone photos of a label on a bottle: each a named degradation of a clean render,
/// seeded per label, ending as the JPEG a phone would hand over.
struct LabelPhotoDegradation: Sendable {
    let name: String
    let make: @Sendable (RGBImage, inout SeededGenerator, ImagePipeline) throws -> Data

    static let all: [LabelPhotoDegradation] = [
        LabelPhotoDegradation(name: "curved bottle") { image, rng, pipeline in
            try pipeline.encodeJPEG(try shrunk(curved(image, rng: &rng), 0.75, pipeline), quality: 82)
        },
        LabelPhotoDegradation(name: "glare") { image, rng, pipeline in
            try pipeline.encodeJPEG(try shrunk(glare(image, rng: &rng), 0.75, pipeline), quality: 82)
        },
        LabelPhotoDegradation(name: "dark surround") { image, rng, pipeline in
            let dark = UInt8.random(in: 10...35, using: &rng)
            return try pipeline.encodeJPEG(try shrunk(surround(image, colour: (dark, dark, dark + 4), rng: &rng), 0.75, pipeline), quality: 82)
        },
        LabelPhotoDegradation(name: "coloured surround") { image, rng, pipeline in
            let colours: [(UInt8, UInt8, UInt8)] = [(130, 62, 12), (22, 58, 140), (30, 110, 60), (150, 20, 40)]
            let colour = colours[Int.random(in: 0..<colours.count, using: &rng)]
            return try pipeline.encodeJPEG(try shrunk(surround(image, colour: colour, rng: &rng), 0.75, pipeline), quality: 82)
        },
        LabelPhotoDegradation(name: "perspective") { image, rng, pipeline in
            try pipeline.encodeJPEG(try shrunk(perspective(image, rng: &rng), 0.75, pipeline), quality: 82)
        },
        LabelPhotoDegradation(name: "JPEG 60") { image, _, pipeline in
            try pipeline.encodeJPEG(try shrunk(image, 0.7, pipeline), quality: 60)
        },
        // The control for the dark and coloured surrounds: the same tilt, dimmed paper and margin on a white table.
        LabelPhotoDegradation(name: "white surround") { image, rng, pipeline in
            let light = UInt8.random(in: 235...250, using: &rng)
            return try pipeline.encodeJPEG(try shrunk(surround(image, colour: (light, light, light), rng: &rng), 0.75, pipeline), quality: 82)
        },
    ]

    static func shrunk(_ image: RGBImage, _ scale: Double, _ pipeline: ImagePipeline) throws -> RGBImage {
        try pipeline.resize(image, width: max(1, Int(Double(image.width) * scale)), height: max(1, Int(Double(image.height) * scale)))
    }

    /// A bilinear sample of `image` at (x, y), `outside` beyond its edges.
    static func sample(_ image: RGBImage, _ x: Double, _ y: Double, outside: (UInt8, UInt8, UInt8)) -> (Double, Double, Double) {
        guard x >= 0, y >= 0, x <= Double(image.width - 1), y <= Double(image.height - 1) else {
            return (Double(outside.0), Double(outside.1), Double(outside.2))
        }
        let x0 = Int(x)
        let y0 = Int(y)
        let x1 = min(x0 + 1, image.width - 1)
        let y1 = min(y0 + 1, image.height - 1)
        let fx = x - Double(x0)
        let fy = y - Double(y0)
        func p(_ xx: Int, _ yy: Int, _ c: Int) -> Double { Double(image.pixels[(yy * image.width + xx) * 3 + c]) }
        func mix(_ c: Int) -> Double {
            (p(x0, y0, c) * (1 - fx) + p(x1, y0, c) * fx) * (1 - fy) + (p(x0, y1, c) * (1 - fx) + p(x1, y1, c) * fx) * fy
        }
        return (mix(0), mix(1), mix(2))
    }

    /// An image `width` x `height` whose pixel (x, y) is `source(x, y)` (RGB, clamped), times `gain(x, y)`.
    static func mapped(width: Int, height: Int, _ source: (Int, Int) -> (Double, Double, Double)) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = source(x, y)
                let o = (y * width + x) * 3
                pixels[o] = UInt8(max(0, min(255, r)))
                pixels[o + 1] = UInt8(max(0, min(255, g)))
                pixels[o + 2] = UInt8(max(0, min(255, b)))
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// The panel wrapped round a bottle seen from a little above: the sides squeezed and shaded, lines bowed.
    static func curved(_ image: RGBImage, rng: inout SeededGenerator) -> RGBImage {
        let wrap = Double.random(in: 40...55, using: &rng) * .pi / 180
        let bow = Double.random(in: 0.015...0.03, using: &rng) * Double(image.height)
        let cx = Double(image.width) / 2
        let radius = cx / sin(wrap)
        let margin = Int(bow) + 4
        let background: (UInt8, UInt8, UInt8) = (70, 70, 76)
        return mapped(width: image.width, height: image.height + 2 * margin) { x, y in
            let phi = asin(max(-1, min(1, (Double(x) - cx) / radius)))
            let sx = cx + cx * phi / wrap
            let sy = Double(y - margin) + bow * (1 - cos(phi)) / (1 - cos(wrap))
            let (r, g, b) = sample(image, sx, sy, outside: background)
            let light = 0.6 + 0.4 * cos(phi)
            return (r * light, g * light, b * light)
        }
    }

    /// A specular highlight: an oval where the light washes the print towards white.
    static func glare(_ image: RGBImage, rng: inout SeededGenerator) -> RGBImage {
        let gx = Double.random(in: 0.2...0.8, using: &rng) * Double(image.width)
        let gy = Double.random(in: 0.25...0.75, using: &rng) * Double(image.height)
        let sx = Double.random(in: 0.06...0.12, using: &rng) * Double(image.width)
        let sy = Double.random(in: 0.15...0.3, using: &rng) * Double(image.height)
        let strength = Double.random(in: 0.55...0.75, using: &rng)
        return mapped(width: image.width, height: image.height) { x, y in
            let dx = (Double(x) - gx) / sx
            let dy = (Double(y) - gy) / sy
            let g = strength * exp(-(dx * dx + dy * dy) / 2)
            let o = (y * image.width + x) * 3
            func lit(_ c: Int) -> Double {
                let v = Double(image.pixels[o + c])
                return v + (255 - v) * g
            }
            return (lit(0), lit(1), lit(2))
        }
    }

    /// The panel (its paper slightly off-white) on a bottle of `colour`, the surround filling the frame round it,
    /// turned by a degree or two.
    static func surround(_ image: RGBImage, colour: (UInt8, UInt8, UInt8), rng: inout SeededGenerator) -> RGBImage {
        let padX = Int(Double(image.width) * Double.random(in: 0.08...0.16, using: &rng))
        let padY = Int(Double(image.height) * Double.random(in: 0.05...0.1, using: &rng))
        let angle = Double.random(in: 1...2.5, using: &rng) * (Bool.random(using: &rng) ? 1 : -1) * .pi / 180
        let paper = Double.random(in: 0.88...0.95, using: &rng)
        let w = image.width + 2 * padX
        let h = image.height + 2 * padY
        let cx = Double(w) / 2
        let cy = Double(h) / 2
        let c = cos(angle)
        let s = sin(angle)
        return mapped(width: w, height: h) { x, y in
            let dx = Double(x) - cx
            let dy = Double(y) - cy
            let sx = dx * c + dy * s + Double(image.width) / 2
            let sy = -dx * s + dy * c + Double(image.height) / 2
            let inside = sx >= 0 && sy >= 0 && sx <= Double(image.width - 1) && sy <= Double(image.height - 1)
            let (r, g, b) = sample(image, sx, sy, outside: colour)
            return inside ? (r * paper, g * paper, b * paper) : (r, g, b)
        }
    }

    /// Seen from below and to one side: the top narrower than the bottom (keystone), a little turned.
    static func perspective(_ image: RGBImage, rng: inout SeededGenerator) -> RGBImage {
        let narrowing = Double.random(in: 0.08...0.16, using: &rng)
        let shear = Double.random(in: -0.04...0.04, using: &rng)
        let w = image.width
        let h = image.height
        let cx = Double(w) / 2
        return mapped(width: w, height: h) { x, y in
            let t = Double(y) / Double(h)
            let scale = 1 - narrowing * (1 - t)
            let sx = cx + (Double(x) - cx) / scale + shear * Double(y - h / 2)
            let sy = Double(y) * (1 + narrowing * 0.3 * (1 - t)) - Double(h) * narrowing * 0.15
            return sample(image, sx, sy, outside: (205, 205, 200))
        }
    }
}
