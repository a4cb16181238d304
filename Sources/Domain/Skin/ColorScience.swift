import Foundation

/// sRGB (D65) to linear light and CIELAB conversions used by the change map.
enum ColorScience {
    /// sRGB-encoded 0...1 to linear light, via a 4096-entry table (error < 1e-4).
    static let toLinearTable: [Float] = (0...4096).map { i in
        let v = Float(i) / 4096
        return v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
    }

    @inline(__always) static func linear(_ v: Float) -> Float {
        let c = min(max(v, 0), 1) * 4096
        let i = min(Int(c), 4095)
        let f = c - Float(i)
        return toLinearTable[i] + (toLinearTable[i + 1] - toLinearTable[i]) * f
    }

    /// Linear light 0...1 to sRGB-encoded (for pictures only: the exact formula, no table).
    static func encoded(_ v: Float) -> Float {
        let c = min(max(v, 0), 1)
        return c <= 0.0031308 ? 12.92 * c : 1.055 * powf(c, 1 / 2.4) - 0.055
    }

    @inline(__always) static func labF(_ t: Float) -> Float {
        t > 0.008856 ? cubeRoot(t) : (7.787 * t + 16.0 / 116.0)
    }

    /// Cube root of a positive finite value: an exponent-thirding first guess refined by three Newton steps, within
    /// about 1e-6 relative of `cbrtf` at a fraction of its cost (the Lab conversion takes six per crop pixel).
    @inline(__always) static func cubeRoot(_ t: Float) -> Float {
        var y = Float(bitPattern: t.bitPattern / 3 &+ 709_921_077)
        for _ in 0..<3 { y -= (y * y * y - t) / (3 * y * y) }
        return y
    }

    /// Linear-light RGB to CIELAB (D65 white).
    @inline(__always) static func lab(linearR r: Float, g: Float, b: Float) -> (Float, Float, Float) {
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        let fx = labF(max(x, 0))
        let fy = labF(max(y, 0))
        let fz = labF(max(z, 0))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
