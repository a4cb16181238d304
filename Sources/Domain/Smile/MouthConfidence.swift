import CairnCore

/// Why a proposed square must be looked at by the person before it is kept.
public enum MouthDoubt: String, Sendable, Equatable, CaseIterable {
    /// No face was found: the square comes from lip and teeth colour alone.
    case noFace
    /// A face was found but its lip points were implausible: the square comes from colour or the face's pose.
    case lipPointsImplausible
    /// The mouth is open wide: landmark models are not trained on this pose and misplace the lower lip.
    case mouthWideOpen
    /// The square was made smaller or moved to keep the eyes out of it.
    case shrunkToKeepEyesOut
    /// The square does not hold the whole mouth with its usual margin (the photo's edge or the eyes pushed it).
    case mouthNearTheSquaresEdge
    /// An eye point lies close to the square.
    case eyeNearTheSquare
    /// The face lies on its side: it was found only in the photo turned a quarter.
    case faceSideways

    /// One plain sentence for the person.
    public var userMessage: String {
        switch self {
        case .noFace: return "No face was found, so the square comes from the colours of lips and teeth alone."
        case .lipPointsImplausible: return "The outline of your lips could not be placed with certainty."
        case .mouthWideOpen: return "Your mouth is open wide, which makes the lower lip hard to place."
        case .shrunkToKeepEyesOut: return "The square was made smaller to keep your eyes out of it."
        case .mouthNearTheSquaresEdge: return "The square may cut off part of your mouth."
        case .eyeNearTheSquare: return "An eye is close to the square."
        case .faceSideways: return "Your face was found lying on its side."
        }
    }
}

/// The one rule that says when a proposed square may be kept without the person's look ("confident").
///
/// A square is confident only when all of these hold:
/// 1. a face was found, and its lip points passed every check of `LipGeometryCheck`;
/// 2. the mouth is not open wide (`MouthCandidate.wideOpen`: the lip points of that pose are not trusted);
/// 3. it was not shrunk or moved to keep the eyes out, and the face was found upright (not only turned a quarter);
/// 4. it holds the whole lip box with `mouthMargin` x the mouth's width to spare on every side;
/// 5. no eye point lies inside it grown by `eyeMargin` x the mouth's width on every side.
///
/// Anything else (a square from colour, with or without a face, a wide-open mouth, a square the photo's edge or
/// the eyes pushed) is a proposal: every door opens the crop check with it, and `SmileService.confirm` refuses to
/// keep it unless the person gives the square. Colour scores are never trusted on their own: on the test photos the
/// colour step scores as high on a photo of dogs (0.73) as on real close-ups.
public enum MouthConfidenceRule {
    /// Margin round the lip box, as a share of the mouth's width (the square is 1.6 widths, so 0.3 on each side
    /// when nothing pushed it).
    public static let mouthMargin = 0.05
    /// Clearance between an eye point and the square, as a share of the mouth's width (landmark jitter).
    public static let eyeMargin = 0.1

    /// Why `candidate` must be checked; empty when it is confident.
    public static func doubts(for candidate: MouthCandidate) -> [MouthDoubt] {
        var doubts: [MouthDoubt] = []
        if candidate.faceBounds == nil { doubts.append(.noFace) }
        if candidate.lipPointsImplausible { doubts.append(.lipPointsImplausible) }
        if candidate.wideOpen { doubts.append(.mouthWideOpen) }
        if candidate.shrunkToKeepEyesOut { doubts.append(.shrunkToKeepEyesOut) }
        if candidate.sideways { doubts.append(.faceSideways) }
        let mouth = candidate.mouthBounds
        let margin = mouthMargin * mouth.width
        let square = candidate.square.rect
        if mouth.x - margin < square.x || mouth.y - margin < square.y || mouth.maxX + margin > square.maxX
            || mouth.maxY + margin > square.maxY
        {
            doubts.append(.mouthNearTheSquaresEdge)
        }
        let clearance = eyeMargin * mouth.width
        let grown = PixelRect(
            x: square.x - clearance, y: square.y - clearance, width: square.width + 2 * clearance, height: square.height + 2 * clearance)
        if candidate.eyes.contains(where: { $0.x >= grown.x && $0.x < grown.maxX && $0.y >= grown.y && $0.y < grown.maxY }) {
            doubts.append(.eyeNearTheSquare)
        }
        return doubts
    }
}

extension MouthCandidate {
    /// Why this square must be checked by the person (`MouthConfidenceRule`); empty when it is confident.
    public var doubts: [MouthDoubt] { MouthConfidenceRule.doubts(for: self) }
    /// Whether this square may be kept without the person's look (`MouthConfidenceRule`).
    public var isConfident: Bool { doubts.isEmpty }
}
