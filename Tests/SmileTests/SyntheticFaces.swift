import CairnCore
import Foundation
import Smile
import Synchronization
import Testing

/// A 68-point face for geometry tests: eyes one mouth width above the lips, lips `mouthWidth` wide and
/// `mouthWidth * 0.4` tall centred on `mouth`; `cornerTilt` (degrees) tilts only the lip corners; `jawDrop` (mouth
/// widths) moves the chin and the lower jaw down, as a mouth opened wide does while the lip points stay put.
func syntheticFace(
    mouth: Point, mouthWidth w: Double, cornerTilt: Double = 0, eyeDrop: Double = 1.0,
    mouthHeightRatio: Double = 0.4, jawDrop: Double = 0
) -> DetectedFace {
    var points = [Point](repeating: Point(x: mouth.x, y: mouth.y - 0.5 * w), count: 68)
    // Jaw 0-16 around the lower face.
    for i in 0...16 {
        let t = Double(i) / 16 * .pi
        points[i] = Point(x: mouth.x - 1.3 * w * cos(t), y: mouth.y - 1.0 * w + 1.5 * w * sin(t) + (4...12 ~= i ? jawDrop * w : 0))
    }
    let eyeY = mouth.y - eyeDrop * w
    for (k, i) in (36..<42).enumerated() {
        points[i] = Point(x: mouth.x - 0.85 * w + Double(k) * 0.08 * w, y: eyeY + (k % 2 == 0 ? -0.05 : 0.05) * w)
    }
    for (k, i) in (42..<48).enumerated() {
        points[i] = Point(x: mouth.x + 0.45 * w + Double(k) * 0.08 * w, y: eyeY + (k % 2 == 0 ? -0.05 : 0.05) * w)
    }
    let h = w * mouthHeightRatio
    // Outer lips 48-59: an ellipse starting at the left corner, going along the top lip.
    for (k, i) in (48..<60).enumerated() {
        let t = Double.pi + Double(k) / 12 * 2 * .pi
        points[i] = Point(x: mouth.x + w / 2 * cos(t), y: mouth.y + h / 2 * sin(t))
    }
    for (k, i) in (60..<68).enumerated() {
        let t = Double.pi + Double(k) / 8 * 2 * .pi
        points[i] = Point(x: mouth.x + w / 3 * cos(t), y: mouth.y + h / 5 * sin(t))
    }
    let tilt = cornerTilt * .pi / 180
    points[48] = Point(x: mouth.x - w / 2 * cos(tilt), y: mouth.y - w / 2 * sin(tilt))
    points[54] = Point(x: mouth.x + w / 2 * cos(tilt), y: mouth.y + w / 2 * sin(tilt))
    let bounds = PixelRect(x: mouth.x - 1.4 * w, y: eyeY - 0.6 * w, width: 2.8 * w, height: 2.8 * w)
    return DetectedFace(bounds: bounds, points: points)
}

/// A detector returning scripted faces (in the coordinates of the image it is given), recording each call.
/// It records an issue if called more often than `allowedCalls` (a cascade that should not ask): 3 by default, the
/// photo upright and, when it has no face, turned a quarter each way.
final class ScriptedDetector: FaceLandmarkDetecting {
    struct Call: Sendable {
        var width: Int
        var height: Int
        var upsampling: Int
    }
    private let script: @Sendable (RGBImage) throws -> [DetectedFace]
    private let allowedCalls: Int
    private let log = Mutex<[Call]>([])

    init(allowedCalls: Int = 3, _ script: @escaping @Sendable (RGBImage) throws -> [DetectedFace]) {
        self.script = script
        self.allowedCalls = allowedCalls
    }

    var calls: [Call] { log.withLock { $0 } }

    func faces(in image: RGBImage, upsampling: Int) throws -> [DetectedFace] {
        let count = log.withLock { calls -> Int in
            calls.append(Call(width: image.width, height: image.height, upsampling: upsampling))
            return calls.count
        }
        if count > allowedCalls { Issue.record("detector called \(count) times, expected at most \(allowedCalls)") }
        return try script(image)
    }
}

/// A skin-toned image with a mouth painted at `mouth`: red lip ellipse `width` wide, a white teeth band.
/// `skin` and `lips` are RGB triples.
func paintedMouth(
    imageWidth: Int = 400, imageHeight: Int = 300, mouth: Point, width: Double, teeth: Bool = true,
    skin: (UInt8, UInt8, UInt8) = (224, 172, 140), lips: (UInt8, UInt8, UInt8) = (170, 60, 75)
) -> RGBImage {
    var image = RGBImage(width: imageWidth, height: imageHeight, red: skin.0, green: skin.1, blue: skin.2)
    let a = width / 2
    let b = width * 0.22
    for y in 0..<imageHeight {
        for x in 0..<imageWidth {
            let dx = (Double(x) - mouth.x) / a
            let dy = (Double(y) - mouth.y) / b
            let r = dx * dx + dy * dy
            guard r <= 1 else { continue }
            let o = image.offset(x: x, y: y)
            if teeth && abs(Double(y) - mouth.y) < b * 0.35 && abs(dx) < 0.7 {
                image.pixels[o] = 245
                image.pixels[o + 1] = 243
                image.pixels[o + 2] = 236
            } else {
                image.pixels[o] = lips.0
                image.pixels[o + 1] = lips.1
                image.pixels[o + 2] = lips.2
            }
        }
    }
    return image
}

/// `image` with every pixel set to its gray level (R = G = B).
func grayscale(_ image: RGBImage) -> RGBImage {
    var out = image
    for i in stride(from: 0, to: out.pixels.count, by: 3) {
        let r: Int = Int(out.pixels[i]) * 299
        let gr: Int = Int(out.pixels[i + 1]) * 587
        let b: Int = Int(out.pixels[i + 2]) * 114
        let g = UInt8((r + gr + b) / 1000)
        out.pixels[i] = g
        out.pixels[i + 1] = g
        out.pixels[i + 2] = g
    }
    return out
}

struct SomeDetectorFailure: Error {}
