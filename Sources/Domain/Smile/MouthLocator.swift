import CairnCore

/// The Smile journal's mouth-finding cascade. Pixels arrive upright (the Imaging adapter applies EXIF
/// orientation). Steps:
/// 1. Landmarks on a downscaled copy: a square centred on the outer-lip box, side 1.6 x its width, moved
///    down if needed so that no eye point falls inside, clamped inside the photo. Several faces: the
///    largest is chosen and the rest offered.
/// 2. A face whose mouth is open wide (`MouthPose`), or whose lip geometry is implausible for an upright face
///    (lip corners tilted against the eyes, mouth out of proportion, taller than wide, not below the eyes), is
///    placed from the box between its nose base and its chin; failing that, by colour analysis within the lower
///    part of that face. Such a square is always a proposal for the person to check (`MouthConfidenceRule`).
/// Every square of a face keeps that face's eye points out: moved down, else made smaller (the person is told),
/// else no square (`eyesTooClose`).
/// 3. No face upright: the same on the copy turned a quarter each way (`sidewaysCandidates`); still none: colour
///    analysis of the whole photo (close-ups), unless the photo is grayscale.
/// 4. Nothing: `.notFound` with the reason; the person places the square.
public struct MouthLocator: Sendable {
    /// Settings of the cascade.
    public struct Configuration: Sendable, Equatable {
        /// Detection runs on a copy whose longer side is at most this (dlib costs grow with pixel count).
        public var detectionLongSide = 1000
        /// When the detection copy's longer side is at most this, it is upsampled once so that faces down to
        /// about 40 px are reachable (costs 4x; cheap for small photos).
        public var upsampleWhenLongSideAtMost = 700
        /// Smallest useful mouth (outer-lip width) in original pixels. 24 px gives a 38 px square: below that
        /// the crop holds too little detail to compare smiles, and the face is near the detector's limit.
        public var minimumMouthWidth = 24
        /// Crop side as a multiple of the outer-lip width.
        public var sideToMouthWidth = 1.6
        /// A colour box's width is scaled by this before sizing the square (1: the colour finder measures
        /// the mouth from corner to corner; raise it if a finder misses faded lip corners).
        public var colourWidthAllowance = 1.0
        /// Without a face, a usual square at least this share of the photo's shorter side makes the photo a close-up,
        /// whose square is the largest that fits (`closeUpSquare`).
        public var closeUpShare = 0.5
        /// When no face is found upright, look for one in the copy turned a quarter each way (two more searches).
        public var searchSideways = true
        /// The turned copies' longer side (at most): a face on its side is searched on a smaller copy.
        public var sidewaysLongSide = 500
        /// The plausibility thresholds of step 2.
        public var lipCheck = LipGeometryCheck()
        /// When a face's mouth counts as open wide.
        public var pose = MouthPose()
        /// The colour step's settings.
        public var colour = ColourMouthFinder()

        /// The defaults.
        public init() {}
    }

    /// The landmark detector, or `nil` when the model is not installed (colour and manual crops still work).
    public let detector: (any FaceLandmarkDetecting)?
    /// The settings.
    public let configuration: Configuration

    /// A cascade over `detector` (nil = no landmark model).
    public init(detector: (any FaceLandmarkDetecting)?, configuration: Configuration = Configuration()) {
        self.detector = detector
        self.configuration = configuration
    }

    /// Lets go of the landmark model (see `FaceLandmarkDetecting.releaseModel`).
    public func releaseModel() { detector?.releaseModel() }

    /// Runs the cascade on an upright photo. Never throws: a failing detector counts as no face found.
    public func locate(in image: RGBImage) -> MouthLocation {
        let (working, _) = Sampling.downscaled(image, longSide: configuration.detectionLongSide)
        return locate(inDetectionCopy: working, photoWidth: image.width, photoHeight: image.height)
    }

    /// Runs the cascade on `working`, an upright copy of a `photoWidth` x `photoHeight` photo whose longer side is
    /// at most `configuration.detectionLongSide` (made by the caller, e.g. shrunk while decoding); squares, sizes
    /// and the smallest-mouth rule are in the photo's pixels.
    public func locate(inDetectionCopy working: RGBImage, photoWidth: Int, photoHeight: Int) -> MouthLocation {
        let image = PhotoSize(width: photoWidth, height: photoHeight)
        let scale = Double(photoWidth) / Double(working.width)
        var tooSmallWidth: Int?

        if let detector {
            let upsample = max(working.width, working.height) <= configuration.upsampleWhenLongSideAtMost ? 1 : 0
            let faces = ((try? detector.faces(in: working, upsampling: upsample)) ?? [])
                .map { $0.scaled(by: scale) }
                .sorted { $0.bounds.area > $1.bounds.area }
            var candidates: [MouthCandidate] = []
            var eyesTooClose = false  // also set by the sideways search
            for face in faces {
                guard let candidate = candidate(for: face, in: image, working: working, scale: scale, eyesTooClose: &eyesTooClose)
                else { continue }
                let width = Int(candidate.mouthBounds.width.rounded())
                if width < configuration.minimumMouthWidth {
                    tooSmallWidth = max(tooSmallWidth ?? 0, width)
                } else {
                    candidates.append(candidate)
                }
            }
            if faces.isEmpty, configuration.searchSideways {
                candidates = sidewaysCandidates(working, detector: detector, upsample: upsample, photo: image, scale: scale)
            }
            if let first = candidates.first {
                return candidates.count == 1 ? .found(first) : .severalFaces(chosen: first, others: Array(candidates.dropFirst()))
            }
            if let width = tooSmallWidth {
                return .notFound(.mouthTooSmall(width: width, minimum: configuration.minimumMouthWidth))
            }
            if eyesTooClose { return .notFound(.eyesTooClose) }
            if !faces.isEmpty { return .notFound(.nothingFound) }
        }

        if Sampling.isGrayscale(working) { return .notFound(.grayscaleWithoutFace) }
        guard let finding = configuration.colour.find(in: working) else { return .notFound(.nothingFound) }
        let bounds = finding.mouthBounds.scaled(by: scale)
        let width = Int(bounds.width.rounded())
        if width < configuration.minimumMouthWidth {
            return .notFound(.mouthTooSmall(width: width, minimum: configuration.minimumMouthWidth))
        }
        return .found(
            MouthCandidate(
                square: closeUpSquare(around: bounds, in: image), detector: .colour, mouthBounds: bounds, faceBounds: nil,
                confidence: finding.confidence))
    }

    /// A square the person can start from when nothing was found: centred, half the shorter side.
    public static func manualStartingSquare(width: Int, height: Int) -> CropSquare {
        CropSquare.clamped(
            centre: Point(x: Double(width) / 2, y: Double(height) / 2),
            side: Double(min(width, height)) / 2, imageWidth: width, imageHeight: height)
    }

    /// The landmark candidate for `face` (original coordinates); for a wide-open mouth or implausible lip points,
    /// the box between the nose base and the chin (`MouthPose.lowerFaceBox`), else colour within the lower face;
    /// `nil` when none works. `eyesTooClose` is set when a mouth was placed but no square holds it without an eye.
    func candidate(for face: DetectedFace, in image: PhotoSize, working: RGBImage, scale: Double, eyesTooClose: inout Bool)
        -> MouthCandidate?
    {
        let eyes = Array(face.eyes)
        let plausible = configuration.lipCheck.isPlausible(face)
        let wideOpen = configuration.pose.isWideOpen(face) || configuration.pose.mouthContinuesBelowLips(face, in: working, scale: scale)
        func make(_ bounds: PixelRect, _ detector: MouthDetector, confidence: Double, allowance: Double = 1) -> MouthCandidate? {
            guard let (square, shrunk) = square(around: bounds, eyes: eyes, in: image, allowance: allowance) else {
                eyesTooClose = true
                return nil
            }
            return MouthCandidate(
                square: square, detector: detector, mouthBounds: bounds, faceBounds: face.bounds, confidence: confidence,
                eyes: eyes, wideOpen: wideOpen, lipPointsImplausible: !plausible, shrunkToKeepEyesOut: shrunk)
        }
        if plausible, !wideOpen, let lips = PixelRect(bounding: face.outerLips) {
            return make(lips, .landmarks, confidence: 1)
        }
        if let box = configuration.pose.lowerFaceBox(face, mouthBottom: configuration.pose.openMouthBottom(face, in: working, scale: scale)) {
            return make(box, .landmarks, confidence: 0.5)
        }
        // Look for the mouth by colour in the lower part of this face (in the working copy).
        guard !Sampling.isGrayscale(working) else { return nil }
        let b = face.bounds
        let region = PixelRect(
            x: b.x - 0.1 * b.width, y: b.y + 0.45 * b.height,
            width: 1.2 * b.width, height: 0.75 * b.height
        ).scaled(by: 1 / scale)
        guard let (patch, ox, oy) = Sampling.cropped(working, to: region),
            let finding = configuration.colour.find(in: patch)
        else { return nil }
        let local = finding.mouthBounds
        let bounds = PixelRect(
            x: local.x + Double(ox), y: local.y + Double(oy),
            width: local.width, height: local.height
        ).scaled(by: scale)
        return make(bounds, .colour, confidence: finding.confidence, allowance: configuration.colourWidthAllowance)
    }

    /// Faces lying on their side (a photo taken sideways, its orientation not recorded): the copy is turned a
    /// quarter each way, the first turn with a face gives the candidates (placed in the turned photo, so the lips,
    /// the eyes and the pose are read in the face's own frame), and they are turned back: a square stays a
    /// square. Each is marked `sideways` (`MouthDoubt.faceSideways`: always checked).
    func sidewaysCandidates(
        _ working: RGBImage, detector: any FaceLandmarkDetecting, upsample: Int, photo: PhotoSize, scale: Double
    )
        -> [MouthCandidate]
    {
        // A face filling a selfie on its side is large: half the detection size finds it at a quarter of the cost.
        let (small, extra) = Sampling.downscaled(working, longSide: configuration.sidewaysLongSide)
        let scale = scale * extra
        for clockwise in [true, false] {
            let turned = Sampling.quarterTurned(small, clockwise: clockwise)
            let faces = ((try? detector.faces(in: turned, upsampling: upsample)) ?? [])
                .map { $0.scaled(by: scale) }
                .sorted { $0.bounds.area > $1.bounds.area }
            guard !faces.isEmpty else { continue }
            let turnedPhoto = PhotoSize(width: photo.height, height: photo.width)
            var ignored = false
            return faces.compactMap { face -> MouthCandidate? in
                guard var c = candidate(for: face, in: turnedPhoto, working: turned, scale: scale, eyesTooClose: &ignored),
                    c.mouthBounds.width >= Double(configuration.minimumMouthWidth)
                else { return nil }
                // Back from the turned photo: clockwise took (x, y) to (H - y, x); counter-clockwise to (y, W - x).
                func back(_ p: Point) -> Point {
                    clockwise ? Point(x: p.y, y: Double(photo.height) - p.x) : Point(x: Double(photo.width) - p.y, y: p.x)
                }
                func back(_ r: PixelRect) -> PixelRect {
                    PixelRect(bounding: [back(Point(x: r.x, y: r.y)), back(Point(x: r.maxX, y: r.maxY))][...])!
                }
                let s = c.square
                c.square =
                    clockwise
                    ? CropSquare(x: s.y, y: photo.height - s.x - s.side, side: s.side)
                    : CropSquare(x: photo.width - s.y - s.side, y: s.x, side: s.side)
                c.mouthBounds = back(c.mouthBounds)
                c.faceBounds = c.faceBounds.map(back)
                c.eyes = c.eyes.map(back)
                c.sideways = true
                return c
            }
        }
        return []
    }

    /// The square for a mouth found by colour in a photo without a face: the usual size (`square(around:)`), but
    /// when that is at least `closeUpShare` of the photo's shorter side, the mouth fills much of the photo (a
    /// close-up, where lip colour tends to miss the corners and the teeth's edges): the largest square that fits.
    func closeUpSquare(around mouth: PixelRect, in image: PhotoSize) -> CropSquare {
        let usual = max(configuration.sideToMouthWidth * mouth.width * configuration.colourWidthAllowance, 1.15 * mouth.height)
        let shorter = Double(min(image.width, image.height))
        guard usual >= configuration.closeUpShare * shorter else {
            return CropSquare.clamped(centre: mouth.centre, side: usual, imageWidth: image.width, imageHeight: image.height)
        }
        // A close-up is framed on the mouth, and colour places the mouth's centre less well than the person did: the
        // square is centred on the photo, moved only as far as keeps the found centre a quarter side inside it.
        let middle = Point(x: Double(image.width) / 2, y: Double(image.height) / 2)
        let reach = shorter / 4
        let centre = Point(
            x: min(max(middle.x, mouth.centre.x - reach), mouth.centre.x + reach),
            y: min(max(middle.y, mouth.centre.y - reach), mouth.centre.y + reach))
        return CropSquare.clamped(centre: centre, side: shorter, imageWidth: image.width, imageHeight: image.height)
    }

    /// Side 1.6 x the mouth's width (or 1.15 x its height when taller, as a wide-open mouth's box is), centred on the
    /// mouth; if an eye point (with a margin of 10% of the mouth width for landmark jitter) would fall inside, the
    /// square moves down below it, but never so far that the top lip leaves it. Then clamped inside the photo. If
    /// the photo's edge then pushes an eye (with its margin) back inside, the square is made smaller, 5% at a time,
    /// and placed below the lowest eye over it, until none is inside (`shrunk` is then true); nil when even the
    /// smallest useful square (1.6 x the smallest mouth) cannot keep the eyes out. Never returns a square holding an
    /// eye point.
    func square(around mouth: PixelRect, eyes: [Point], in image: PhotoSize, allowance: Double = 1) -> (CropSquare, shrunk: Bool)? {
        let side = max(configuration.sideToMouthWidth * mouth.width * allowance, 1.15 * mouth.height)
        let margin = 0.1 * mouth.width
        func eyesOver(left: Double, right: Double) -> [Point] { eyes.filter { $0.x >= left - margin && $0.x < right + margin } }
        func clear(_ s: CropSquare) -> Bool {
            let r = s.rect
            return !eyes.contains { $0.x >= r.x - margin && $0.x < r.maxX + margin && $0.y >= r.y - margin && $0.y < r.maxY + margin }
        }
        var centre = mouth.centre
        if let lowestEye = eyesOver(left: centre.x - side / 2, right: centre.x + side / 2).filter({ $0.y < mouth.y }).map(\.y).max() {
            let top = min(max(centre.y - side / 2, lowestEye + margin), mouth.y)
            centre.y = top + side / 2
        }
        let first = CropSquare.clamped(centre: centre, side: side, imageWidth: image.width, imageHeight: image.height)
        if clear(first) { return (first, false) }
        let smallest = configuration.sideToMouthWidth * Double(configuration.minimumMouthWidth)
        var trial = min(side, Double(min(image.width, image.height)))
        while trial >= smallest {
            let over = eyesOver(left: mouth.centre.x - trial / 2, right: mouth.centre.x + trial / 2)
            let top = (over.map(\.y).max() ?? 0) + margin + 1
            let square = CropSquare.clamped(
                centre: Point(x: mouth.centre.x, y: max(mouth.centre.y, top + trial / 2)), side: trial,
                imageWidth: image.width, imageHeight: image.height)
            if clear(square) { return (square, true) }
            trial *= 0.95
        }
        return nil
    }
}

/// The pixel size of a photo, for squares placed in it.
struct PhotoSize {
    let width: Int
    let height: Int
}
