import CairnCore
import Foundation

/// Brightness and sharpness of one photo or live frame, scored against fixed thresholds.
public struct CaptureQuality: Sendable, Equatable, Codable {
    /// Mean Rec. 709 luminance of the sRGB values, 0 (black) ... 1 (white).
    public let meanLuminance: Double
    /// Share of pixels with any channel at or below 3/255.
    public let darkClippedFraction: Double
    /// Share of pixels with any channel at or above 252/255.
    public let brightClippedFraction: Double
    /// Variance of a 4-neighbour Laplacian of the grey image (0-255 scale) at `analysisSide` pixels.
    public let sharpness: Double
    /// Mean luminance below `CaptureQualityAnalyzer.darkLimit`.
    public let isTooDark: Bool
    /// Mean luminance above `CaptureQualityAnalyzer.brightLimit`.
    public let isTooBright: Bool
    /// More than `CaptureQualityAnalyzer.clippingLimit` of pixels clipped at either end.
    public let isClipped: Bool
    /// Sharpness below `CaptureQualityAnalyzer.softLimit`.
    public let isSoft: Bool
    /// True when no flag is raised.
    public var isGood: Bool { !isTooDark && !isTooBright && !isClipped && !isSoft }

    /// True when the light raises no flag (not too dark, too bright or clipped).
    public var isLightGood: Bool { !isTooDark && !isTooBright && !isClipped }
    /// The light in words, the one wording of the live badge and the photo log: "Too dark", "Too bright", "Some parts
    /// too dark or bright" or "Light looks even".
    public var lightWords: String {
        isTooDark ? "Too dark" : isTooBright ? "Too bright" : isClipped ? "Some parts too dark or bright" : "Light looks even"
    }
    /// The focus in words: "Looks soft" or "Looks sharp".
    public var focusWords: String { isSoft ? "Looks soft" : "Looks sharp" }
    /// What the live badge suggests for a soft frame, after `focusWords`.
    public static let softAdvice = "hold still or move back a little"
    /// Both in one line, as the photo log prints them: "light looks even, looks sharp".
    public var summary: String {
        [lightWords, focusWords].map { $0.prefix(1).lowercased() + $0.dropFirst() }.joined(separator: ", ")
    }
}

/// Scores capture quality of stored photos and live frames alike (same working size, same thresholds).
public enum CaptureQualityAnalyzer {
    /// Shorter side (pixels) the frame is resampled to before measuring, so scores do not depend on resolution.
    public static let analysisSide = 256
    /// Mean luminance under this is "too dark".
    public static let darkLimit = 0.18
    /// Mean luminance over this is "too bright".
    public static let brightLimit = 0.85
    /// Clipped share (either end) over this is "clipped".
    public static let clippingLimit = 0.05
    /// Laplacian variance under this is "soft". Measured by `cairn-bench skin` on 320 px skin views with
    /// light sensor noise: views blurred with sigma 2 px score p50 3.7 / p95 4.5; sharp views of the
    /// high-resolution patches and procedural skin score far above (the whole set's p50 is 9.8; the upscaled
    /// low-resolution cheeks are genuinely soft and score like blurred views).
    public static let softLimit = 5.0

    /// Scores one frame. Frames smaller than 3x3 are scored as they are (sharpness 0).
    public static func analyze(_ image: RGBImage) -> CaptureQuality {
        let n = image.width * image.height
        var lumSum: Double = 0
        var dark = 0
        var bright = 0
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let r = p[3 * i]
                let g = p[3 * i + 1]
                let b = p[3 * i + 2]
                lumSum += 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
                if min(r, min(g, b)) <= 3 { dark += 1 }
                if max(r, max(g, b)) >= 252 { bright += 1 }
            }
        }
        let mean = lumSum / Double(n) / 255
        let darkF = Double(dark) / Double(n)
        let brightF = Double(bright) / Double(n)
        var sharp = 0.0
        if min(image.width, image.height) >= 3 {
            let planes = ColorPlanes.resampled(image, shortSide: min(analysisSide, min(image.width, image.height)))
            let g = planes.luma
            let w = g.width
            let h = g.height
            var s: Double = 0
            var sq: Double = 0
            var cnt = 0
            g.data.withUnsafeBufferPointer { d in
                for y in 1..<(h - 1) {
                    for x in 1..<(w - 1) {
                        let i = y * w + x
                        let lap = Double(d[i - 1] + d[i + 1] + d[i - w] + d[i + w] - 4 * d[i]) * 255
                        s += lap
                        sq += lap * lap
                        cnt += 1
                    }
                }
            }
            if cnt > 0 { sharp = sq / Double(cnt) - (s / Double(cnt)) * (s / Double(cnt)) }
        }
        return CaptureQuality(
            meanLuminance: mean, darkClippedFraction: darkF, brightClippedFraction: brightF,
            sharpness: sharp, isTooDark: mean < darkLimit, isTooBright: mean > brightLimit,
            isClipped: darkF + brightF > clippingLimit, isSoft: sharp < softLimit)
    }
}

/// How much the camera moved between two successive live frames: the webcam's stand-in for a phone's
/// gyroscope. Like the light and focus scores it informs and never blocks.
public struct FrameSteadiness: Sendable, Equatable, Codable {
    /// Estimated displacement between the frames as a share of the frame's shorter side (0.01 = 1%). Frames
    /// of different shapes read as `.infinity`.
    public let displacement: Double
    /// Displacement at or below `CaptureQualityAnalyzer.steadyLimit`.
    public var isSteady: Bool { displacement <= CaptureQualityAnalyzer.steadyLimit }
    /// The steadiness badge's words: "Holding still" or "Moving: hold still".
    public var words: String { isSteady ? "Holding still" : "Moving: hold still" }
}

extension CaptureQualityAnalyzer {
    /// Shorter side (pixels) both frames are resampled to before their change is measured.
    public static let steadinessSide = 64
    /// The most displacement (share of the shorter side) between two successive frames still called steady:
    /// 1.5%, 1 px at `steadinessSide`. Measured by the tests (largest or smallest reading): an exposure change
    /// alone 0.02%; sensor noise on a featureless grey view 0.6%; real skin views (the shared set's 16 bases,
    /// 320 px JPEG as the page posts them) re-encoded 0.2%, moved 0.5% (tremor) 0.5%, moved 6% at least 3.2%
    /// (the first-order estimate reads about half of a large movement); a 4° turn 2.2%.
    public static let steadyLimit = 0.015
    /// Gradient (grey level 0...1 per pixel at `steadinessSide`) added to every pixel's gradient in the
    /// estimate's denominator: about half a grey level, above what sensor noise leaves after resampling, so
    /// noise on a featureless view does not read as movement.
    static let steadinessGradientFloor: Float = 0.002

    /// Estimates how far the picture moved from `previous` to `current`, as a share of the shorter side. At
    /// `steadinessSide`, both frames' grey values are blurred slightly and `current` is brought to the mean and
    /// spread of `previous` (an exposure change alone is no movement); then the frame difference is divided by
    /// the picture's gradient: a first-order optical-flow estimate of the shift in pixels, |ΔI| ≈ |∇I · d|, with
    /// π/2 for the mean |cos| over directions. Large movements saturate the estimate (a 6% move reads about
    /// 3%) but stay well above the limit; frames of another shape read `.infinity`.
    public static func steadiness(previous: RGBImage, current: RGBImage) -> FrameSteadiness {
        func plane(_ image: RGBImage) -> (plane: Plane, mean: Float, spread: Float)? {
            let short = min(image.width, image.height)
            guard short >= 8 else { return nil }
            let p = ColorPlanes.resampled(image, shortSide: min(steadinessSide, short)).luma.gaussianBlurred(sigma: 1)
            let n = Float(p.data.count)
            let mean = p.data.reduce(0, +) / n
            let spread = (p.data.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot()
            return (p, mean, spread)
        }
        guard let a = plane(previous), let b = plane(current), a.plane.width == b.plane.width, a.plane.height == b.plane.height else {
            return FrameSteadiness(displacement: .infinity)
        }
        let w = a.plane.width
        let h = a.plane.height
        let gain = a.spread / max(b.spread, 1e-4)
        let pa = a.plane.data.map { $0 - a.mean }
        let pb = b.plane.data.map { ($0 - b.mean) * gain }
        var change: Double = 0
        var gradient: Double = 0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                change += Double(abs(pb[i] - pa[i]))
                let gx = (pa[i + 1] - pa[i - 1] + pb[i + 1] - pb[i - 1]) / 4
                let gy = (pa[i + w] - pa[i - w] + pb[i + w] - pb[i - w]) / 4
                gradient += Double((gx * gx + gy * gy).squareRoot() + steadinessGradientFloor)
            }
        }
        let pixels = Double.pi / 2 * change / gradient
        return FrameSteadiness(displacement: pixels / Double(min(w, h)))
    }
}
