import CairnCore
import Foundation

/// Checks whether a face's lip landmarks are plausible for an upright face. A wide-open mouth, a hand or
/// a strong shadow can make the landmark model place the lips wrongly; such faces go to the colour step.
public struct LipGeometryCheck: Sendable, Equatable {
    /// Largest allowed angle, in degrees, between the lip-corner line and the eye line.
    public var maximumCornerTilt: Double = 20
    /// Largest allowed angle, in degrees, of the eye line from horizontal (an upright face).
    public var maximumEyeLineTilt: Double = 45
    /// Allowed range of outer-lip width divided by the distance between the eye centres.
    public var mouthToEyeWidth: ClosedRange<Double> = 0.45...1.6
    /// Largest allowed outer-lip height divided by its width (a wide-open mouth is about 0.8-1.0).
    public var maximumOpenness: Double = 1.2
    /// Smallest distance from the eye line down to the mouth centre, as a share of the eye distance.
    public var minimumEyeToMouthDrop: Double = 0.5
    /// How far (share of mouth width) inner-lip points may stray outside the outer-lip box.
    public var innerLipTolerance: Double = 0.1

    /// The default thresholds.
    public init() {}

    /// Why a face's lips were judged implausible.
    public enum Problem: Sendable, Equatable {
        /// The lip corners are tilted against the eye line by more than allowed.
        case cornersTiltedAgainstEyes
        /// The eye line itself is tilted more than an upright face allows.
        case faceNotUpright
        /// The mouth is too narrow or too wide for the eye distance.
        case mouthWidthOutOfProportion
        /// The outer lips are taller than a mouth can open.
        case mouthTooTall
        /// The mouth is not below the eyes.
        case mouthNotBelowEyes
        /// Inner-lip points lie outside the outer lips.
        case innerLipsOutsideOuterLips
    }

    /// The problems found with `face`'s lips; empty when they are plausible.
    public func problems(with face: DetectedFace) -> [Problem] {
        let points = face.points
        let leftEye = Self.mean(points[FaceLandmarkIndex.leftEye])
        let rightEye = Self.mean(points[FaceLandmarkIndex.rightEye])
        let eyeDistance = leftEye.distance(to: rightEye)
        guard eyeDistance > 0, let outer = PixelRect(bounding: face.outerLips), outer.width > 0 else {
            return [.mouthWidthOutOfProportion]
        }
        var found: [Problem] = []
        let eyeAngle = Self.degrees(from: leftEye, to: rightEye)
        let cornerAngle = Self.degrees(
            from: points[FaceLandmarkIndex.leftLipCorner],
            to: points[FaceLandmarkIndex.rightLipCorner])
        if abs(eyeAngle) > maximumEyeLineTilt { found.append(.faceNotUpright) }
        if abs(Self.normalised(cornerAngle - eyeAngle)) > maximumCornerTilt { found.append(.cornersTiltedAgainstEyes) }
        if !mouthToEyeWidth.contains(outer.width / eyeDistance) { found.append(.mouthWidthOutOfProportion) }
        if outer.height / outer.width > maximumOpenness { found.append(.mouthTooTall) }

        // Distance of the mouth centre below the eye line, measured perpendicular to it (down = positive).
        let eyeMid = Point(x: (leftEye.x + rightEye.x) / 2, y: (leftEye.y + rightEye.y) / 2)
        let ux = (rightEye.x - leftEye.x) / eyeDistance
        let uy = (rightEye.y - leftEye.y) / eyeDistance
        let mouth = Self.mean(face.outerLips)
        let drop = (mouth.x - eyeMid.x) * -uy + (mouth.y - eyeMid.y) * ux
        if drop < minimumEyeToMouthDrop * eyeDistance { found.append(.mouthNotBelowEyes) }

        let slack = innerLipTolerance * outer.width
        let innerOutside = face.innerLips.contains { p in
            p.x < outer.x - slack || p.x > outer.maxX + slack || p.y < outer.y - slack || p.y > outer.maxY + slack
        }
        if innerOutside { found.append(.innerLipsOutsideOuterLips) }
        return found
    }

    /// Whether `face`'s lips are plausible for an upright face.
    public func isPlausible(_ face: DetectedFace) -> Bool { problems(with: face).isEmpty }

    static func mean(_ points: ArraySlice<Point>) -> Point {
        let n = Double(points.count)
        return Point(x: points.reduce(0) { $0 + $1.x } / n, y: points.reduce(0) { $0 + $1.y } / n)
    }

    static func degrees(from a: Point, to b: Point) -> Double {
        atan2(b.y - a.y, b.x - a.x) * 180 / .pi
    }

    static func normalised(_ angle: Double) -> Double {
        var a = angle.truncatingRemainder(dividingBy: 360)
        if a > 180 { a -= 360 }
        if a < -180 { a += 360 }
        return a
    }
}

/// The wide-open pose, read from a face's landmarks. Orthodontic photos are often taken with the mouth open as far
/// as it goes to show the teeth; landmark models are not trained on that pose and place the lower lip too high, so
/// such a mouth is found from what stays reliable (the nose base, the chin, the lip corners and the upper lip).
///
/// Thresholds from the 43 annotated ordinary faces of ../shared/data/faces (inner-lip gap up to 0.42 of the mouth's
/// width, outer-lip height up to 0.66 of it, nose base to chin up to 1.68 eye distances on a 12 px face, 1.45 on
/// the rest); the pose is only ever a reason to ask the person (`MouthDoubt.mouthWideOpen`), never to store.
public struct MouthPose: Sendable, Equatable {
    /// Smallest gap between the inner lips (points 62-66), as a share of the mouth's width, that counts as wide open.
    public var openInnerGap = 0.5
    /// Smallest outer-lip height (points 51-57), as a share of the mouth's width, that counts as wide open.
    public var openOuterHeight = 0.75
    /// Smallest nose-base-to-chin distance (points 33-8), in eye distances, that counts as a dropped jaw.
    public var droppedJaw = 1.55
    /// Share of mouth-like pixels under the lower lip's points above which the mouth goes on below them.
    public var continuingShare = 0.35

    /// The defaults.
    public init() {}

    /// Whether `face`'s mouth is open wide: its lips part widely, or its jaw has dropped.
    public func isWideOpen(_ face: DetectedFace) -> Bool {
        let p = face.points
        let width = p[FaceLandmarkIndex.leftLipCorner].distance(to: p[FaceLandmarkIndex.rightLipCorner])
        let eyes = LipGeometryCheck.mean(p[FaceLandmarkIndex.leftEye]).distance(to: LipGeometryCheck.mean(p[FaceLandmarkIndex.rightEye]))
        guard width > 0, eyes > 0 else { return false }
        return p[62].distance(to: p[66]) >= openInnerGap * width || p[51].distance(to: p[57]) >= openOuterHeight * width
            || p[FaceLandmarkIndex.noseBase].distance(to: p[FaceLandmarkIndex.chin]) >= droppedJaw * eyes
    }

    /// Whether the mouth seems to go on below the lower lip's points: in a band under them (a fifth of the mouth's
    /// width deep, the middle half of its width) more than `continuingShare` of the pixels look like the inside of
    /// a mouth (`mouthLikeShare`) where the chin's skin should be. Landmark models keep the lower lip points near a
    /// closed mouth's when the mouth is open wide; this is what shows it. A beard's shadow counts too: the person
    /// is then asked, which is the safe side. `image` is the copy searched; the face is in photo pixels, `scale`
    /// photo pixels per copy pixel.
    public func mouthContinuesBelowLips(_ face: DetectedFace, in image: RGBImage, scale: Double) -> Bool {
        let p = face.points
        let width = p[48].distance(to: p[54])
        return (mouthLikeShare(face, in: image, scale: scale, from: p[57].y + 0.05 * width, to: p[57].y + 0.25 * width) ?? 0)
            > continuingShare
    }

    /// Where an open mouth ends below the lower lip's points, found from the pixels: bands a tenth of the mouth's
    /// width deep are taken downwards while they look like the inside of a mouth (at most 1.5 widths), and the lower
    /// lip (a fifth of the width) is added below the last. Nil when the first band does not.
    public func openMouthBottom(_ face: DetectedFace, in image: RGBImage, scale: Double) -> Double? {
        let p = face.points
        let width = p[48].distance(to: p[54])
        var bottom: Double?
        var y = p[57].y
        while y < p[57].y + 1.5 * width,
            let share = mouthLikeShare(face, in: image, scale: scale, from: y, to: y + 0.1 * width), share > continuingShare
        {
            y += 0.1 * width
            bottom = y + 0.2 * width
        }
        return bottom
    }

    /// The share of pixels between rows `top` and `bottom` (photo pixels), across the middle half of the mouth's
    /// width, that look like the inside of an open mouth: darker than 55% of the skin's luminance (the skin measured
    /// between the nose base and the upper lip), or brighter than 115% of it and greyer than 60% of its colourfulness
    /// (teeth). Nil when the rows or the skin have too few pixels.
    func mouthLikeShare(_ face: DetectedFace, in image: RGBImage, scale: Double, from top: Double, to bottom: Double) -> Double? {
        let p = face.points.map { Point(x: $0.x / scale, y: $0.y / scale) }
        let width = p[FaceLandmarkIndex.leftLipCorner].distance(to: p[FaceLandmarkIndex.rightLipCorner])
        guard width >= 8 else { return nil }
        let left = Int(p[48].x + 0.25 * width)
        let right = Int(p[54].x - 0.25 * width)
        let nose = p[FaceLandmarkIndex.noseBase].y
        let upperLip = p[51].y
        func pixels(from top: Double, to bottom: Double) -> [(luma: Double, chroma: Double)] {
            var out: [(Double, Double)] = []
            let y0 = max(0, Int(top))
            let y1 = min(image.height - 1, Int(bottom))
            let x0 = max(0, left)
            let x1 = min(image.width - 1, right)
            guard y1 >= y0, x1 >= x0 else { return [] }
            for y in y0...y1 {
                for x in x0...x1 {
                    let o = image.offset(x: x, y: y)
                    let r = Double(image.pixels[o])
                    let g = Double(image.pixels[o + 1])
                    let b = Double(image.pixels[o + 2])
                    out.append((0.299 * r + 0.587 * g + 0.114 * b, max(r, g, b) - min(r, g, b)))
                }
            }
            return out
        }
        guard upperLip > nose else { return nil }
        let skin = pixels(from: nose + 0.3 * (upperLip - nose), to: nose + 0.7 * (upperLip - nose))
        let band = pixels(from: top / scale, to: bottom / scale)
        guard skin.count >= 4, band.count >= 4 else { return nil }
        let skinLuma = skin.map(\.luma).sorted()[skin.count / 2]
        let skinChroma = skin.map(\.chroma).sorted()[skin.count / 2]
        let mouthLike = band.filter { $0.luma < 0.55 * skinLuma || ($0.luma > 1.15 * skinLuma && $0.chroma < 0.6 * skinChroma) }
        return Double(mouthLike.count) / Double(band.count)
    }

    /// The box a wide-open mouth (or one whose lip points are implausible) lies in, from the reliable points: from
    /// just below the nose base to just past the chin (the jaw's points lag behind a dropped jaw), and as wide as the lip corners or 0.9 eye distances,
    /// whichever is wider, centred between them; down to `mouthBottom` (photo pixels, `openMouthBottom`) when that is
    /// lower. Nil when those points do not make an upright lower face (the
    /// chin not below the nose base, the nose base not below the eyes).
    public func lowerFaceBox(_ face: DetectedFace, mouthBottom: Double? = nil) -> PixelRect? {
        let p = face.points
        let leftEye = LipGeometryCheck.mean(p[FaceLandmarkIndex.leftEye])
        let rightEye = LipGeometryCheck.mean(p[FaceLandmarkIndex.rightEye])
        let eyeDistance = leftEye.distance(to: rightEye)
        let nose = p[FaceLandmarkIndex.noseBase]
        let chin = p[FaceLandmarkIndex.chin]
        let eyeLine = (leftEye.y + rightEye.y) / 2
        let drop = chin.y - nose.y
        guard eyeDistance > 0, nose.y > eyeLine, drop > 0.5 * eyeDistance, drop < 3 * eyeDistance else { return nil }
        guard let lips = PixelRect(bounding: face.outerLips) else { return nil }
        let top = min(nose.y + 0.1 * drop, lips.y)
        let bottom = max(chin.y + 0.05 * drop, lips.maxY, mouthBottom ?? 0)
        let centreX = (lips.centre.x + (nose.x + chin.x) / 2) / 2
        let width = max(lips.width, 0.9 * eyeDistance)
        return PixelRect(x: centreX - width / 2, y: top, width: width, height: bottom - top)
    }
}
