import CairnCore

/// One face found in an image: its box and its 68 landmark points (iBUG 300-W scheme), in the pixel
/// coordinates of the image that was searched, top-left origin.
public struct DetectedFace: Sendable, Equatable {
    /// The face box as the detector reported it.
    public var bounds: PixelRect
    /// The 68 points; see `FaceLandmarkIndex` for which is which.
    public var points: [Point]
    /// The detector's confidence (higher is surer; its own threshold is 0).
    public var score: Double

    /// A face over `points`; traps unless there are exactly 68 (a programming error in an adapter).
    public init(bounds: PixelRect, points: [Point], score: Double = 0) {
        precondition(points.count == FaceLandmarkIndex.count, "a face has 68 landmark points")
        self.bounds = bounds
        self.points = points
        self.score = score
    }

    /// Outer lips, points 48-59.
    public var outerLips: ArraySlice<Point> { points[FaceLandmarkIndex.outerLips] }
    /// Inner lips, points 60-67.
    public var innerLips: ArraySlice<Point> { points[FaceLandmarkIndex.innerLips] }
    /// Both eyes, points 36-47.
    public var eyes: ArraySlice<Point> { points[FaceLandmarkIndex.eyes] }

    /// The same face with every coordinate multiplied by `factor` (to map a downscaled copy back).
    public func scaled(by factor: Double) -> DetectedFace {
        DetectedFace(
            bounds: bounds.scaled(by: factor),
            points: points.map { Point(x: $0.x * factor, y: $0.y * factor) },
            score: score)
    }
}

/// Index ranges of the 68-point scheme. "Left"/"right" are as seen in the image.
public enum FaceLandmarkIndex {
    /// Points per face.
    public static let count = 68
    /// The nose base (the point under the nose tip, between the nostrils).
    public static let noseBase = 33
    /// The chin's lowest point.
    public static let chin = 8
    /// The eye on the image's left (the person's right eye), points 36-41.
    public static let leftEye = 36..<42
    /// The eye on the image's right, points 42-47.
    public static let rightEye = 42..<48
    /// Both eyes, points 36-47.
    public static let eyes = 36..<48
    /// Outer lips, points 48-59; 48 and 54 are the lip corners.
    public static let outerLips = 48..<60
    /// Inner lips, points 60-67.
    public static let innerLips = 60..<68
    /// Every mouth point, 48-67.
    public static let mouth = 48..<68
    /// The lip corner on the image's left.
    public static let leftLipCorner = 48
    /// The lip corner on the image's right.
    public static let rightLipCorner = 54
}

/// The port through which the Smile journal finds faces and their landmarks (the Landmarks adapter
/// implements it with dlib). Implementations must be safe to call from several threads.
public protocol FaceLandmarkDetecting: Sendable {
    /// Every face in `image` with its 68 points, largest first. `upsampling` (0-2) doubles the image that
    /// many times before searching, to reach smaller faces at four times the cost each step.
    func faces(in image: RGBImage, upsampling: Int) throws -> [DetectedFace]
    /// Lets go of the loaded model (the next search loads it again); for a caller about to need the memory.
    func releaseModel()
}

extension FaceLandmarkDetecting {
    /// A detector with no model to let go of.
    public func releaseModel() {}

    /// Every face in `image` with its 68 points, largest first, without upsampling.
    public func faces(in image: RGBImage) throws -> [DetectedFace] {
        try faces(in: image, upsampling: 0)
    }
}
