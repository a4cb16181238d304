import CairnCore
import Foundation

/// Pictures of the inner steps of one comparison, to look at what a figure stands on (`cairn-bench skin --inspect`):
/// the baseline's crop, the probe lined up on it, the probe after the tone fit, the change map (set-aside pixels red,
/// pixels outside the probe blue) and the colour and texture blob terms, each in units of its noise scale (white at 2).
/// Never stored and never shown to the person: a tool for whoever tunes the method.
final class Inspection {
    private(set) var panels: [(title: String, pixels: [UInt8])] = []
    /// Panel size: the comparison grid's.
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// An sRGB panel from three planes of 0...1 values on the comparison grid.
    func colour(_ title: String, _ planes: [[Float]]) {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for k in 0..<(width * height) {
            for c in 0..<3 { px[3 * k + c] = UInt8(min(max(planes[c][k], 0), 1) * 255 + 0.5) }
        }
        panels.append((title, px))
    }

    /// A grey panel of `values / white` (clipped), with marked pixels tinted: red where `red`, blue where `blue`.
    /// `values` is `sourceWidth` columns wide (the grid's width unless given; its rows follow from its count),
    /// resampled to the panel's size by the nearest pixel.
    func grey(_ title: String, _ values: [Float], white: Float, red: [Bool]? = nil, blue: [Bool]? = nil, width sourceWidth: Int? = nil) {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        let w = sourceWidth ?? width
        let h = values.count / max(1, w)
        for o in 0..<(width * height) {
            let k = min(h - 1, (o / width) * h / height) * w + min(w - 1, (o % width) * w / width)
            let px3 = 3 * o
            let v = UInt8(min(max(values[k] / white, 0), 1) * 255 + 0.5)
            px[px3] = v
            px[px3 + 1] = v
            px[px3 + 2] = v
            if red?[k] == true {
                px[px3] = 255
                px[px3 + 1] /= 3
                px[px3 + 2] /= 3
            }
            if blue?[k] == true {
                px[px3] /= 3
                px[px3 + 1] /= 3
                px[px3 + 2] = 255
            }
        }
        panels.append((title, px))
    }

    /// The panels side by side, each enlarged `zoom` times, with a 4 px gap.
    func montage(zoom: Int = 2) -> RGBImage {
        let pw = width * zoom
        let ph = height * zoom
        let gap = 4
        let w = max(1, panels.count) * (pw + gap) - gap
        var px = [UInt8](repeating: 40, count: w * ph * 3)
        for (p, panel) in panels.enumerated() {
            let ox = p * (pw + gap)
            for y in 0..<ph {
                for x in 0..<pw {
                    let k = (y / zoom) * width + x / zoom
                    let o = (y * w + ox + x) * 3
                    px[o] = panel.pixels[3 * k]
                    px[o + 1] = panel.pixels[3 * k + 1]
                    px[o + 2] = panel.pixels[3 * k + 2]
                }
            }
        }
        return RGBImage(width: w, height: ph, pixels: px)
    }
}

extension SkinComparator {
    /// Compares like `compare(baseline:probe:)` and also returns a strip of pictures of the inner steps (see
    /// `Inspection`): for the bench, to look at the pairs behind a figure.
    public static func inspect(baseline: PreparedPhoto, probe: PreparedPhoto) throws -> (SkinComparisonResult, RGBImage) {
        guard baseline.revision == probe.revision, baseline.revision == .current else {
            throw SkinComparisonError.revisionMismatch(baseline.revision, probe.revision)
        }
        let grid = ComparisonGrid(baselineWidth: baseline.color.width, baselineHeight: baseline.color.height)
        let inspection = Inspection(width: grid.width, height: grid.height)
        let result = ChangeAnalysis.run(baseline: baseline, probe: probe, inspection: inspection)
        return (result, inspection.montage())
    }
}
