import CairnCore
import Foundation
import Imaging
import Landmarks
import Smile

/// The orthodontic kinds of photo the Smile bench judges per kind (issue 45), made from the annotated faces of
/// ../shared/data/faces because nothing else can be fetched here. They are renders, not photos: a mouth is opened by
/// stretching the lips apart and painting a dark mouth with upper and lower teeth; braces are grey brackets on a
/// wire across the upper teeth; close-ups are cut around the rendered mouth and upscaled. The truth moves with the
/// render (the 68 points warped the same way), so "holds the whole mouth" is checked against where the lips went.
/// They show whether the cascade copes with the pose and the framing, not with real teeth, real braces or real
/// intraoral views: those are judged again on real photos.
enum SmileDevelopmentSet {
    /// One rendered face: its pixels and its 68 points after the render.
    struct Render {
        var image: RGBImage
        var points: [Point]
        var mouth: ArraySlice<Point> { points[FaceLandmarkIndex.mouth] }
        var eyes: ArraySlice<Point> { points[FaceLandmarkIndex.eyes] }
    }

    /// `image` with the face of `points` given an open mouth: the photo is split along the lip line and everything
    /// below it (the lower lip, the jaw, the chin) goes down by `opening` x the mouth's width across the jaw (less
    /// towards its sides). Between the lips opens a gap shaped like an open mouth (deepest in the middle, closing
    /// at the inner lip corners; the lower lip is stretched over the rest), painted dark with a band of upper teeth
    /// (and lower teeth when open wide). The photo grows at the bottom (its last row repeated) so the chin stays in
    /// it. `braces` adds a bracket on each upper tooth and a wire through them.
    static func openMouth(_ image: RGBImage, points: [Point], opening: Double, braces: Bool) -> Render {
        let p = points
        let width = p[48].distance(to: p[54])
        let cx = (p[48].x + p[54].x) / 2
        let yMid = p[60...67].reduce(0) { $0 + $1.y } / 8
        let a = 0.25 * width
        let d = opening * width
        let jawHalf = max(width, (p[16].x - p[0].x) / 2)
        let halfWidth = max(0.3 * width, 0.95 * (p[64].x - p[60].x) / 2)
        /// How far column `x` goes down: all of `d` across the mouth, nothing beyond the jaw.
        func shift(_ x: Double) -> Double {
            let t = abs(x - cx)
            if t <= 0.6 * jawHalf { return d }
            if t >= 1.1 * jawHalf { return 0 }
            return d * (1.1 * jawHalf - t) / (0.5 * jawHalf)
        }
        /// The gap between the lips in column `x`.
        func gap(_ x: Double) -> Double {
            let e = (x - cx) / halfWidth
            return abs(e) < 1 ? min(shift(x), d * (1 - e * e).squareRoot()) : 0
        }
        func forward(_ pt: Point) -> Point {
            let s = shift(pt.x)
            let g = gap(pt.x)
            if pt.y <= yMid { return pt }
            if pt.y <= yMid + a { return Point(x: pt.x, y: yMid + g + (pt.y - yMid) * (a + s - g) / a) }
            return Point(x: pt.x, y: pt.y + s)
        }
        let grow = Int(d.rounded(.up))
        var out = RGBImage(width: image.width, height: image.height + grow, red: 0, green: 0, blue: 0)
        func set(_ x: Int, _ y: Int, _ c: (Double, Double, Double)) {
            guard x >= 0, y >= 0, x < out.width, y < out.height else { return }
            let o = out.offset(x: x, y: y)
            out.pixels[o] = UInt8(max(0, min(255, c.0)))
            out.pixels[o + 1] = UInt8(max(0, min(255, c.1)))
            out.pixels[o + 2] = UInt8(max(0, min(255, c.2)))
        }
        let tooth = max(2, 0.11 * width)
        let wire = yMid + 0.22 * d
        for x in 0..<image.width {
            let fx = Double(x)
            let s = shift(fx)
            let g = gap(fx)
            for y in 0..<out.height {
                let dy = Double(y)
                if dy > yMid, dy < yMid + g {
                    // Inside the open mouth: teeth at the top (and bottom when wide), dark behind.
                    let e = (fx - cx) / halfWidth
                    let depth = (dy - yMid) / max(1, d)
                    let seam = abs((fx - cx).truncatingRemainder(dividingBy: tooth)) < 0.6
                    let upperTeeth = dy < yMid + (braces ? 0.45 : 0.3) * d && abs(e) < 0.85
                    let lowerTeeth = opening > 0.5 && dy > yMid + g - 0.15 * d && abs(e) < 0.7
                    if upperTeeth || lowerTeeth {
                        let shade = 238 - 40 * e * e
                        set(x, y, seam ? (150, 140, 130) : (shade, shade - 4, shade - 18))
                    } else {
                        let dark = 1 - 0.6 * min(1, depth * 2) * (1 - e * e)
                        set(x, y, (75 * dark + 15, 24 * dark + 6, 30 * dark + 8))
                    }
                    continue
                }
                let src: Double
                if dy <= yMid {
                    src = dy
                } else if dy <= yMid + a + s {
                    src = yMid + (dy - yMid - g) * a / (a + s - g)
                } else {
                    src = dy - s
                }
                let sy = min(image.height - 1, max(0, Int(src.rounded())))
                let from = image.offset(x: x, y: sy)
                let to = out.offset(x: x, y: y)
                out.pixels[to] = image.pixels[from]
                out.pixels[to + 1] = image.pixels[from + 1]
                out.pixels[to + 2] = image.pixels[from + 2]
            }
        }
        if braces {
            var x = cx - 0.8 * halfWidth
            while x <= cx + 0.8 * halfWidth {
                set(Int(x), Int(wire.rounded()), (150, 150, 158))
                x += 1
            }
            let bracket = max(2, Int(0.045 * width))
            var t = cx - (0.8 * halfWidth / tooth).rounded(.down) * tooth + tooth / 2
            while t < cx + 0.8 * halfWidth {
                for yy in (Int(wire) - bracket / 2)...(Int(wire) + bracket / 2) {
                    for xx in (Int(t) - bracket / 2)...(Int(t) + bracket / 2) { set(xx, yy, (172, 174, 180)) }
                }
                t += tooth
            }
        }
        return Render(image: out, points: p.map(forward))
    }

    /// Writes the render of `kind` (open, braces, closeup) of the largest face dlib finds in `photo` to `out`
    /// as a JPEG (made by the Imaging adapter; no metadata carried over).
    static func renderFile(kind: String, photo: String, out: String, modelPath: String) throws {
        let pipeline = ImagePipeline()
        let image = try pipeline.decodeRGB(Data(contentsOf: URL(fileURLWithPath: photo)))
        let detector = DlibLandmarkDetector(modelPath: modelPath)
        guard let face = try detector.faces(in: image, upsampling: 0).max(by: { $0.bounds.area < $1.bounds.area }) else {
            throw RenderError(description: "no face in \(photo)")
        }
        var render = openMouth(image, points: face.points, opening: kind == "open" ? 0.8 : 0.3, braces: kind != "open")
        if kind == "closeup" {
            let lips = PixelRect(bounding: render.points[FaceLandmarkIndex.outerLips])!
            let (w, h) = (1.6 * lips.width, 1.1 * lips.width)
            let left = max(0, Int(lips.centre.x - w / 2))
            let top = max(0, Int(lips.centre.y - h / 2))
            guard
                let cut = pipeline.crop(
                    render.image, x: left, y: top, width: min(render.image.width - left, Int(w)), height: min(render.image.height - top, Int(h)))
            else { throw RenderError(description: "the mouth is at the photo's edge") }
            render.image = try pipeline.resize(cut, width: 1200, height: Int(1200 * Double(cut.height) / Double(cut.width)))
        }
        try pipeline.encodeJPEG(render.image, quality: 92).write(to: URL(fileURLWithPath: out))
    }

    struct RenderError: Error, CustomStringConvertible { let description: String }
}
