/// Which step of the cascade placed a mouth square.
public enum MouthDetector: String, Sendable, Equatable {
    /// Face landmarks (steps 1-2).
    case landmarks
    /// Colour analysis (step 3).
    case colour
}

/// One proposed mouth crop.
public struct MouthCandidate: Sendable, Equatable {
    /// The square to crop, in the original photo's pixels, inside the photo.
    public var square: CropSquare
    /// Which step placed it.
    public var detector: MouthDetector
    /// The lips' bounding box in the original photo's pixels (outer lips, or the colour region).
    public var mouthBounds: PixelRect
    /// The face box when a face was found.
    public var faceBounds: PixelRect?
    /// How sure the step is, 0-1 (landmarks: 1 when the lip geometry is plausible; colour: its score). Information
    /// only: whether the square may be kept unchecked is `isConfident` (`MouthConfidenceRule`).
    public var confidence: Double
    /// The face's eye points (landmarks 36-47) in the original photo's pixels; empty without a face.
    public var eyes: [Point]
    /// Whether the face's mouth is open wide (`MouthPose`): the square then comes from the nose base, the chin and
    /// the lip corners, not from the lip outline.
    public var wideOpen: Bool
    /// Whether the face's lip points failed `LipGeometryCheck` (the square then comes from colour or the pose).
    public var lipPointsImplausible: Bool
    /// Whether the square was made smaller or moved to keep the eyes out of it.
    public var shrunkToKeepEyesOut: Bool
    /// Whether the face was found only in the photo turned a quarter (it lies on its side).
    public var sideways = false

    /// A candidate; see the properties.
    public init(
        square: CropSquare, detector: MouthDetector, mouthBounds: PixelRect, faceBounds: PixelRect?, confidence: Double,
        eyes: [Point] = [], wideOpen: Bool = false, lipPointsImplausible: Bool = false, shrunkToKeepEyesOut: Bool = false
    ) {
        self.square = square
        self.detector = detector
        self.mouthBounds = mouthBounds
        self.faceBounds = faceBounds
        self.confidence = confidence
        self.eyes = eyes
        self.wideOpen = wideOpen
        self.lipPointsImplausible = lipPointsImplausible
        self.shrunkToKeepEyesOut = shrunkToKeepEyesOut
    }
}

/// Why no mouth square is proposed.
public enum MouthNotFoundReason: Sendable, Equatable {
    /// No face and no mouth-like colours.
    case nothingFound
    /// A mouth was found but is narrower than the smallest useful size (both in original pixels).
    case mouthTooSmall(width: Int, minimum: Int)
    /// No face was found, and the photo has no colour, so the colour step cannot run.
    case grayscaleWithoutFace
    /// A face was found, but no square big enough to be useful holds its mouth without an eye (the eyes are too
    /// close to the mouth, or the photo's edge leaves no room below them).
    case eyesTooClose

    /// What to tell the person (plain words, no photo details).
    public var userMessage: String {
        switch self {
        case .nothingFound:
            return "No mouth could be found in this photo. Place the square over your smile yourself."
        case .mouthTooSmall:
            return "The mouth in this photo is too small to make a useful crop. Take a closer photo, or place the square yourself."
        case .grayscaleWithoutFace:
            return "No face was found, and this photo is in black and white, so the mouth cannot be found by colour. Place the square yourself."
        case .eyesTooClose:
            return "No square could hold your mouth without an eye, so none is suggested. Place the square yourself, below your eyes."
        }
    }
}

/// What the cascade proposes for a photo. Nothing is kept until the person confirms a crop.
public enum MouthLocation: Sendable, Equatable {
    /// One mouth (one face, or a close-up found by colour).
    case found(MouthCandidate)
    /// Several faces: `chosen` is the largest; `others` are the rest, largest first, for the person to pick.
    case severalFaces(chosen: MouthCandidate, others: [MouthCandidate])
    /// Nothing usable: the person places the square (see `MouthLocator.manualStartingSquare`).
    case notFound(MouthNotFoundReason)

    /// The proposed crop, if any.
    public var chosen: MouthCandidate? {
        switch self {
        case .found(let c): return c
        case .severalFaces(let c, _): return c
        case .notFound: return nil
        }
    }

    /// Every candidate, the chosen one first.
    public var candidates: [MouthCandidate] {
        switch self {
        case .found(let c): return [c]
        case .severalFaces(let c, let others): return [c] + others
        case .notFound: return []
        }
    }
}
