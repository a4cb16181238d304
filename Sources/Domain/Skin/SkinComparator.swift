import CairnCore
import Foundation

/// The version of the comparison method. Comparison data of two different revisions is never compared.
public struct ComparisonRevision: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The revision number, stored with every entry's comparison data.
    public let number: Int
    /// Makes a revision value (for decoding stored data).
    public init(_ number: Int) { self.number = number }
    /// The revision this build computes. Revision 1: keypoint + intensity alignment, robust colour fit, Lab and
    /// texture change map. Revision 2 adds robust alignment (Huber-weighted intensity refinement, clipped band-pass
    /// correlation) and a local-displacement block term to the raw score. Revision 3 weighs the raw score against the
    /// pair's own noise, re-weights the map terms and re-fits the calibration (and the "not comparable" gate changed
    /// too). Each revision's scores mean something else: stored comparisons of another revision are dropped and
    /// recomputed from the photos when the vault opens, never mixed.
    /// Revision 4 (issue 18, measured on photo pairs rendered from real photos): a tone curve per channel (gain field
    /// and gamma in linear light), the transform checked against the ring of the frame around the crop so that a
    /// change inside it is not explained away, something else at the crop's edge set aside, blob-sized colour and
    /// texture terms, the raw score as the largest of four figures each in units of its own noise, a weakly aligned
    /// pair "not comparable", and a mapping with a gentler tail.
    /// Revision 5: a slanted phone's perspective followed (a homography fitted to the ring of the frame where it
    /// supports one, `Perspective`), and the ring check's candidates refined at half resolution.
    /// Revision 6: something else at the crop's edge (a background band) is found on a map that covers the ring of the
    /// frame too, by its colour as well as its detail (`ForeignEdge`), so that a thin strip of it entering the crop is
    /// set aside instead of read as change.
    /// Revision 7: the blob-sized colour term measured wider and on a tone curve fitted to locally averaged planes, the
    /// blob-sized texture term one-sided (a loss of texture), and the four change figures re-measured in units of their
    /// own noise (`Calibration.termScales`), with the noise floor (`Calibration.noiseFloor`), so that a colour shift or a
    /// smoothing is no longer held to a higher bar than a new mark.
    /// Revision 8: the blob-sized texture term measured against the relation of the two photos' texture energies over
    /// the whole crop (a gain for an overall blur, an offset for their sensor-noise difference), so that a noisier or
    /// softer retake of finely textured skin is not read as a local smoothing.
    /// Revision 9: a new mark smaller than the change map's high percentile can see (a few pixels across) counts, by the
    /// peak of the change map averaged over 3x3 grid pixels (`SpotTerm`), a fifth figure of the raw score.
    /// Revision 10: the new-mark figure measured as the change of a blob detector's response (lightness, centre minus
    /// surround, the smallest difference within a grid pixel's shift), so that a mark of a few photo pixels' radius stands
    /// out against a retake's noise (`SpotTerm`).
    /// Revision 11: the whole frame is compared, not a central square of 60% of its shorter side: the lined-up overlap
    /// of the two photos, less what shows something else at the edge (`ForeignEdge`) and a margin along the probe's edge;
    /// what is left out is counted (`ComparisonDiagnostics.outsideFraction`, `foreignFraction`) and drawn on the change
    /// map (`ChangeMap.notCompared`). The change terms keep revision 10's grid step, and their high percentiles keep
    /// the same number of grid pixels as over the crop (`ComparisonGrid.upperQuantile`).
    public static let current = ComparisonRevision(11)
    /// Orders revisions by number.
    public static func < (l: ComparisonRevision, r: ComparisonRevision) -> Bool { l.number < r.number }
    /// "r1", "r2", ...
    public var description: String { "r\(number)" }
}

/// Why two photos cannot be compared.
public enum NotComparableReason: String, Sendable, Codable, CaseIterable {
    /// No transform lined the photos up: most likely a different subject or a very different framing.
    case alignmentFailed
    /// The photos line up poorly and differ almost everywhere, as photos of different subjects do.
    case differentContent
    /// The colour distributions differ beyond what lighting explains.
    case colourMismatch
    /// One photo is (nearly) uniform: there is no detail to line the photos up with.
    case tooLittleDetail
    /// Too little of the lined-up crop is left once pixels at white (in either photo) are set aside.
    case tooBright
    /// The photos line up, but only weakly (revision 4): a figure would claim more than the alignment supports.
    case weakAlignment

    /// A plain sentence for the compare page.
    public var userMessage: String {
        switch self {
        case .alignmentFailed: return "These photos could not be lined up. They may show different areas."
        case .differentContent: return "These photos look like different areas, so they are not compared."
        case .colourMismatch: return "The colours differ too much to compare these photos."
        case .tooLittleDetail: return "A photo has too little detail to line the two photos up."
        case .tooBright: return "Too much of a photo is washed out to white to compare it. A photo in softer light can be compared."
        case .weakAlignment:
            return "These photos line up only loosely, so no figure is given. A photo framed more like the first one can be compared."
        }
    }
}

/// How the probe was aligned to the baseline.
public enum AlignmentMethod: String, Sendable, Codable {
    /// Keypoint matching with RANSAC, refined by intensity alignment.
    case keypoints
    /// Intensity-based alignment after a coarse search (too few keypoint matches).
    case intensity
    /// Nothing lined the photos up.
    case failed
}

/// What the alignment step found; translation is a fraction of the baseline's shorter side.
public struct AlignmentSummary: Sendable, Equatable, Codable {
    /// Which method produced the transform.
    public let method: AlignmentMethod
    /// Keypoint matches that passed the ratio test.
    public let keypointMatches: Int
    /// RANSAC inliers among them.
    public let keypointInliers: Int
    /// Scale of the probe relative to the baseline (1 = same size).
    public let scale: Double
    /// Rotation of the probe relative to the baseline, degrees.
    public let rotationDegrees: Double
    /// Horizontal shift of the crop centre in the probe, as a fraction of the baseline's shorter side.
    public let shiftX: Double
    /// Vertical shift, as a fraction of the baseline's shorter side.
    public let shiftY: Double
    /// Normalised correlation of the aligned central crops (grey, lightly smoothed), -1...1.
    public let correlation: Double
    /// The perspective the alignment followed (revision 5): the relative change of magnification across half the
    /// frame, as when the phone was held slanted; 0 when the transform is a similarity (no perspective fitted or
    /// supported by the ring of the frame).
    public var keystone: Double = 0

    /// A plain sentence when the alignment followed a perspective of 1% or more (a photo taken at a slant); nil otherwise.
    public var perspectiveMessage: String? {
        guard keystone >= 0.01 else { return nil }
        return
            "A photo was taken at a slant, so its perspective was followed (about \(Int((keystone * 100).rounded()))% across half the frame) before comparing."
    }

    /// A summary from its figures.
    public init(
        method: AlignmentMethod, keypointMatches: Int, keypointInliers: Int, scale: Double, rotationDegrees: Double,
        shiftX: Double, shiftY: Double, correlation: Double, keystone: Double = 0
    ) {
        self.method = method
        self.keypointMatches = keypointMatches
        self.keypointInliers = keypointInliers
        self.scale = scale
        self.rotationDegrees = rotationDegrees
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.correlation = correlation
        self.keystone = keystone
    }

    /// Decodes a stored summary; `keystone` (added in revision 5) defaults to 0 when absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        method = try c.decode(AlignmentMethod.self, forKey: .method)
        keypointMatches = try c.decode(Int.self, forKey: .keypointMatches)
        keypointInliers = try c.decode(Int.self, forKey: .keypointInliers)
        scale = try c.decode(Double.self, forKey: .scale)
        rotationDegrees = try c.decode(Double.self, forKey: .rotationDegrees)
        shiftX = try c.decode(Double.self, forKey: .shiftX)
        shiftY = try c.decode(Double.self, forKey: .shiftY)
        correlation = try c.decode(Double.self, forKey: .correlation)
        keystone = try c.decodeIfPresent(Double.self, forKey: .keystone) ?? 0
    }
}

/// A small grey heat map of local change over the baseline's whole frame (its central crop until revision 10),
/// row-major: 64 x 64 cells stretched over the frame whatever its shape.
public struct ChangeMap: Sendable, Equatable, Codable {
    /// Columns (64).
    public let width: Int
    /// Rows (64).
    public let height: Int
    /// `width * height` values; 0 = no change, 1 = at or beyond the display ceiling, `notCompared` where the cell was not
    /// compared (outside the other photo, set aside, or washed out).
    public let values: [Float]

    /// The value of a cell that was not compared.
    public static let notCompared: Float = -1

    /// A map from its cells.
    public init(width: Int, height: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.values = values
    }

    /// True where the cell was not compared.
    public func isCompared(_ index: Int) -> Bool { values[index] >= 0 }

    /// The share of cells not compared, 0...1.
    public var notComparedShare: Double {
        Double(values.filter { $0 < 0 }.count) / Double(max(1, values.count))
    }

    /// The stored form: one byte a cell, 0...254 for no change ... the display ceiling, 255 for a cell not compared.
    public var bytes: [UInt8] { values.map { $0 < 0 ? 255 : UInt8(min($0, 1) * 254 + 0.5) } }

    /// A change map from its stored form (`bytes`). Nil when the count does not match.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width > 0, height > 0, bytes.count == width * height else { return nil }
        self.init(width: width, height: height, values: bytes.map { $0 == 255 ? Self.notCompared : Float($0) / 254 })
    }
}

/// The outcome of comparing a probe photo with a baseline photo of the same area.
public struct SkinComparisonResult: Sendable, Equatable, Codable {
    /// The method revision that produced this result.
    public let revision: ComparisonRevision
    /// Raw distance: higher means more different (shown only with "Show comparison details").
    public let rawScore: Double
    /// Visual similarity 0...100, nil when the photos are not comparable.
    public let similarityPercent: Double?
    /// False when the photos should not be compared (see `reasonNotComparable`).
    public let comparable: Bool
    /// Why not, when `comparable` is false.
    public let reasonNotComparable: NotComparableReason?
    /// Where the photos differ, over the baseline's central crop.
    public let changeMap: ChangeMap
    /// How the probe was lined up with the baseline.
    public let alignment: AlignmentSummary
    /// Secondary figures behind the "not comparable" gate (for "Show comparison details" and calibration).
    public let diagnostics: ComparisonDiagnostics
}

/// Secondary figures of one comparison.
public struct ComparisonDiagnostics: Sendable, Equatable, Codable {
    /// Median of the change map (before display scaling): high when the photos differ everywhere.
    public let medianChange: Double
    /// Grey-world chromaticity histogram distance, 0 (same) ... 1 (disjoint).
    public let histogramDistance: Double
    /// The colour-and-structure part of the raw score (change map percentile terms, after the noise normalisation).
    public var mapScore: Double = 0
    /// The local-displacement part before weighting: how much better small blocks match after a local shift.
    public var displacement: Double = 0
    /// Share of the central crop inside both photos and not at white in every channel of either (revision 3), 0...1:
    /// where the change map has detail to compare.
    public var unclippedFraction: Double = 1
    /// Share of the central crop inside both photos with no channel at white in either (revision 3), 0...1: where
    /// colour (ΔE) is compared too.
    public var colourFraction: Double = 1

    /// Colour change over blob-sized regions (revision 4): 99th percentile minus median of the Gaussian-averaged
    /// (sigma 6 grid pixels; 9.5 from revision 7) signed Lab difference's magnitude, ΔE units.
    public var colourBlob: Double = 0
    /// Texture change over blob-sized regions (revision 4): 99th percentile of the absolute deviation from its median
    /// of the Gaussian-averaged log band-pass energy ratio; from revision 7 its median minus its 1st percentile (a loss
    /// of texture only); from revision 8 against the crop-wide gain-and-offset relation of the two energies.
    public var textureBlob: Double = 0
    /// Share of the compared area set aside because the probe shows something else there, at its edge (revision 4; of
    /// the central crop until revision 10, of the baseline's whole frame from revision 11).
    public var foreignFraction: Double = 0
    /// Share of the baseline's frame not compared because the probe does not cover it (revision 11): outside the other
    /// photo once lined up, with a margin of a few pixels along its edge.
    public var outsideFraction: Double = 0
    /// The new-mark figure (`SpotTerm`): from revision 10 the peak over the crop of the change of a centre-minus-surround
    /// blob response of lightness (L* units), minus its median; in revision 9 the peak of the change map averaged over 3x3
    /// grid pixels, minus its median (change-map units, before the noise normalisation).
    public var spotPeak: Double = 0

    /// Below this `colourFraction` a comparable result says that colour was compared on part of the area only.
    public static let partialColourLimit = 0.5

    /// A plain sentence when much of a photo is washed out to white in some channel, so that colour was compared on
    /// under half of the area and the rest by its detail only; nil otherwise.
    public var partialColourMessage: String? {
        guard colourFraction < Self.partialColourLimit else { return nil }
        let share = Int((colourFraction * 100).rounded(.down))
        return "Part of a photo is washed out to white, so colour was compared on \(share)% of the area only; the rest is compared by its detail."
    }

    /// A plain sentence when 2% or more of the first photo's frame was not compared, with why: outside the other photo
    /// once the two are lined up, or showing something else at the edge (a background or clothing that came into the
    /// frame). What is not compared never counts as "similar"; nil when under 2%.
    public var notComparedMessage: String? {
        let total = outsideFraction + foreignFraction
        guard total >= 0.02 else { return nil }
        func pct(_ v: Double) -> Int { max(1, Int((v * 100).rounded())) }
        var reasons: [String] = []
        if outsideFraction >= 0.01 { reasons.append("\(pct(outsideFraction))% lies outside the other photo") }
        if foreignFraction >= 0.01 { reasons.append("\(pct(foreignFraction))% shows something else at the edge, such as a background") }
        let why = reasons.isEmpty ? "" : ": " + reasons.joined(separator: " and ")
        return "About \(max(2, Int((total * 100).rounded())))% of the first photo was not compared\(why). A change there does not lower the figure."
    }

    /// Diagnostics from their figures.
    public init(
        medianChange: Double, histogramDistance: Double, mapScore: Double = 0, displacement: Double = 0,
        unclippedFraction: Double = 1, colourFraction: Double = 1, colourBlob: Double = 0, textureBlob: Double = 0, foreignFraction: Double = 0,
        spotPeak: Double = 0, outsideFraction: Double = 0
    ) {
        self.medianChange = medianChange
        self.histogramDistance = histogramDistance
        self.mapScore = mapScore
        self.displacement = displacement
        self.unclippedFraction = unclippedFraction
        self.colourFraction = colourFraction
        self.colourBlob = colourBlob
        self.textureBlob = textureBlob
        self.foreignFraction = foreignFraction
        self.spotPeak = spotPeak
        self.outsideFraction = outsideFraction
    }

    /// Decodes stored diagnostics; figures added after revision 1 default to 0 when absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        medianChange = try c.decode(Double.self, forKey: .medianChange)
        histogramDistance = try c.decode(Double.self, forKey: .histogramDistance)
        mapScore = try c.decodeIfPresent(Double.self, forKey: .mapScore) ?? 0
        displacement = try c.decodeIfPresent(Double.self, forKey: .displacement) ?? 0
        unclippedFraction = try c.decodeIfPresent(Double.self, forKey: .unclippedFraction) ?? 1
        colourFraction = try c.decodeIfPresent(Double.self, forKey: .colourFraction) ?? 1
        colourBlob = try c.decodeIfPresent(Double.self, forKey: .colourBlob) ?? 0
        textureBlob = try c.decodeIfPresent(Double.self, forKey: .textureBlob) ?? 0
        foreignFraction = try c.decodeIfPresent(Double.self, forKey: .foreignFraction) ?? 0
        spotPeak = try c.decodeIfPresent(Double.self, forKey: .spotPeak) ?? 0
        outsideFraction = try c.decodeIfPresent(Double.self, forKey: .outsideFraction) ?? 0
    }
}

/// Errors of the comparison engine.
public enum SkinComparisonError: CairnError, Equatable {
    /// The image is smaller than `SkinComparator.minimumSide` on its shorter side.
    case imageTooSmall
    /// Comparison data of two different method revisions cannot be compared.
    case revisionMismatch(ComparisonRevision, ComparisonRevision)
    /// Stored comparison data could not be read.
    case corruptFingerprint

    /// Plain English, no user content.
    public var userMessage: String {
        switch self {
        case .imageTooSmall:
            return "This photo is too small to compare. Use a photo at least \(SkinComparator.minimumSide) pixels on each side."
        case .revisionMismatch(let a, let b):
            return "These photos were prepared by different comparison versions (\(a) and \(b)) and cannot be compared. Prepare both again."
        case .corruptFingerprint:
            return "The stored comparison data is damaged. Prepare the photo again."
        }
    }
}

/// Stored comparison data of one photo: its revision plus a small working copy. Save it with the entry;
/// comparing two fingerprints of different revisions throws.
public struct ComparisonFingerprint: Sendable, Equatable, Codable {
    /// The revision that made it.
    public let revision: ComparisonRevision
    /// Working copy width.
    public let width: Int
    /// Working copy height.
    public let height: Int
    /// Working copy, 8-bit RGB, row-major.
    public let pixels: [UInt8]

    /// A fingerprint from stored fields (e.g. decoded from the database).
    public init(revision: ComparisonRevision, width: Int, height: Int, pixels: [UInt8]) {
        self.revision = revision
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// One photo prepared for comparison (working resolution, keypoints, pyramid). Prepare a baseline
/// once and compare many probes against it.
public struct PreparedPhoto: Sendable {
    /// The method revision that prepared it.
    public let revision: ComparisonRevision
    let color: ColorPlanes
    let gray: Plane  // luma 0...1, lightly smoothed
    let band: Plane  // band-pass luma (sigma 1 minus ~3.5): structure without shading
    let pyramid: Pyramid
    let keypoints: [Keypoint]
    let lumaStdDev: Float

    /// The compact data to store with the entry.
    public var fingerprint: ComparisonFingerprint { ComparisonFingerprint(revision: revision, color: color) }
}

extension ComparisonFingerprint {
    /// The working copy `color`, 8 bits a channel.
    init(revision: ComparisonRevision, color: ColorPlanes) {
        var px = [UInt8](repeating: 0, count: color.width * color.height * 3)
        for i in 0..<(color.width * color.height) {
            px[3 * i] = UInt8(min(max(color.r.data[i] * 255, 0), 255).rounded())
            px[3 * i + 1] = UInt8(min(max(color.g.data[i] * 255, 0), 255).rounded())
            px[3 * i + 2] = UInt8(min(max(color.b.data[i] * 255, 0), 255).rounded())
        }
        self.init(revision: revision, width: color.width, height: color.height, pixels: px)
    }
}

/// Compares skin photos of one area: align, sample the baseline's whole frame (its central 60% square until revision
/// 10), fit colour, map local change.
///
/// Pipeline of revision 3 (revisions 4 and 5 in `ChangeAnalysis`; all on a working copy whose shorter side is `workingSide` pixels):
/// 1. Align probe to baseline: FAST-9 corners + oriented 256-bit binary descriptors, Hamming matching with a
///    ratio test, RANSAC over a 4-DOF similarity; then coarse-to-fine Gauss-Newton intensity alignment
///    (ECC-like, with gain/offset, Huber-weighted so a local change does not pull the warp). With too few
///    matches, a coarse grid search seeds the intensity alignment. The "not comparable" correlation is taken on
///    band-pass luma clipped at 3 robust sigmas, so one strong new spot cannot dominate it. Only when that fails
///    the gate, a wide search on detrended coarse planes (scale 0.8-1.25, +-20 degrees) and the normal seed start
///    three refinements on the band-pass planes lightly smoothed (sloppy blur, noise and uneven light), taken only
///    when they reach the same threshold over the crop and a lower one in each of its quadrants.
/// 2. Sample the baseline's central 60% square and the warped probe on a `mapSide` grid (revision 11: the whole frame,
///    `ComparisonGrid`, at the same step, after a smooth residual field, `ResidualField`).
/// 3. Fit the probe's colour to the baseline per channel in linear light with a trimmed least-squares
///    model `(g0 + gx*x + gy*y) * probe + offset` (a gain that may vary linearly across the frame, which
///    absorbs uneven lighting), ignoring clipped pixels.
/// 4. Change map: CIELAB ΔE, taking the best match within one pixel (tolerates residual misalignment),
///    plus a texture term (local high-pass energy ratio relative to its median over the crop, which
///    separates local smoothing from global blur) and a structure term, smoothed over 7x7; raw score = a high
///    percentile minus the median, plus the same spread over 15x15 windows.
/// 5. Local displacement: 16x16 blocks of band-pass L matched within +-3 grid pixels; how much better the best
///    shift fits than none, 97th percentile minus median over the crop, is added to the raw score.
/// 6. The raw score is divided by the square root of the pair's relative noise level (90th percentile minus median
///    of the map), so that a change is weighed against the noise of these two photos.
public enum SkinComparator {
    /// Shorter side of the working copy, pixels.
    public static let workingSide = 224
    /// Smallest accepted shorter side of an input photo, pixels.
    public static let minimumSide = 32
    /// Side of the central crop relative to the baseline's shorter side.
    public static let cropFraction: Float = 0.6
    /// What the figure covers, said wherever a figure is shown (page, CLI, JSON, PDF, phone). From revision 11 the whole
    /// of the first photo is compared, wherever the other photo covers it once the two are lined up; what is left out is
    /// counted beside the figure (`ComparisonDiagnostics.notComparedMessage`) and never read as "similar".
    public static let comparedRegionSentence =
        "The whole of the first photo is compared, wherever the other photo covers it once the two are lined up. Any part that could not be compared is counted beside the figure and does not count as similar."
    /// Side of the internal change grid over the central crop of revisions 1 to 10: the reference area of the change
    /// terms' percentiles (`ComparisonGrid.referenceCount`).
    static let mapSide = 128
    /// Grid pixels across the shorter side of the whole frame compared from revision 11: revision 10's crop grid step
    /// (`mapSide` across `cropFraction` of the shorter side).
    static let gridShortSide = 213
    /// Side of the returned heat map.
    public static let changeMapSide = 64

    /// Prepares one photo. Throws `imageTooSmall` below `minimumSide`.
    public static func prepare(_ image: RGBImage) throws -> PreparedPhoto {
        prepare(color: try workingCopy(of: image))
    }

    /// The data stored with a photo: `prepare(_:)`'s `fingerprint`, without the rest of the preparation (corners,
    /// band-pass, pyramid), which a comparison makes again from the stored data. Throws `imageTooSmall` below
    /// `minimumSide`.
    public static func fingerprint(of image: RGBImage) throws -> ComparisonFingerprint {
        ComparisonFingerprint(revision: .current, color: try workingCopy(of: image))
    }

    /// The working copy of a photo (shorter side `workingSide`). Throws `imageTooSmall` below `minimumSide`.
    private static func workingCopy(of image: RGBImage) throws -> ColorPlanes {
        guard min(image.width, image.height) >= minimumSide else { throw SkinComparisonError.imageTooSmall }
        return ColorPlanes.resampled(image, shortSide: workingSide)
    }

    /// Rebuilds a prepared photo from stored comparison data. Throws `revisionMismatch` when it was made by
    /// another revision, `corruptFingerprint` when its fields are inconsistent.
    public static func prepare(_ fingerprint: ComparisonFingerprint) throws -> PreparedPhoto {
        guard fingerprint.revision == ComparisonRevision.current else {
            throw SkinComparisonError.revisionMismatch(fingerprint.revision, ComparisonRevision.current)
        }
        guard fingerprint.width >= minimumSide, fingerprint.height >= minimumSide,
            fingerprint.pixels.count == fingerprint.width * fingerprint.height * 3
        else {
            throw SkinComparisonError.corruptFingerprint
        }
        let n = fingerprint.width * fingerprint.height
        var r = [Float](repeating: 0, count: n)
        var g = r
        var b = r
        for i in 0..<n {
            r[i] = Float(fingerprint.pixels[3 * i]) / 255
            g[i] = Float(fingerprint.pixels[3 * i + 1]) / 255
            b[i] = Float(fingerprint.pixels[3 * i + 2]) / 255
        }
        let w = fingerprint.width
        let h = fingerprint.height
        return prepare(
            color: ColorPlanes(
                r: Plane(width: w, height: h, data: r), g: Plane(width: w, height: h, data: g),
                b: Plane(width: w, height: h, data: b)))
    }

    static func prepare(color: ColorPlanes) -> PreparedPhoto {
        let luma = color.luma
        // Two 3x3 box passes: a light smoothing (sigma ~1.15) against sensor noise.
        let gray = luma.boxBlurred(radius: 1).boxBlurred(radius: 1)
        var mean: Double = 0
        var sq: Double = 0
        for v in gray.data {
            mean += Double(v)
            sq += Double(v) * Double(v)
        }
        mean /= Double(gray.data.count)
        let sd = max(0, sq / Double(gray.data.count) - mean * mean).squareRoot()
        // Keypoints on a contrast-normalised copy so that exposure changes do not change the corner set.
        let k = Float(sd > 1e-6 ? 40 / sd : 0)
        let norm = Plane(width: gray.width, height: gray.height, data: gray.data.map { ($0 - Float(mean)) * k + 128 })
        // Two 3x3 box passes (sigma ~1.15) on top of the sigma-1 luma: descriptor smoothing of about 1.5.
        let smooth = norm.boxBlurred(radius: 1).boxBlurred(radius: 1)
        let kps = sd > 0.004 ? Keypoints.detect(gray: norm, smoothed: smooth) : []
        // Three box passes of radius 3 approximate a Gaussian of sigma 3.5.
        var band = gray.highPassed(radius: 3, passes: 3)
        // Clipped at 3 robust sigmas, so that one strong new feature (a dark spot) cannot dominate the
        // alignment correlation and make a changed photo of the same subject look "not comparable".
        let mad = Plane.quantile(stride(from: 0, to: band.data.count, by: 4).map { abs(band.data[$0]) }, 0.5) * 1.4826
        if mad > 1e-6 {
            let lim = 3 * mad
            for i in band.data.indices { band.data[i] = min(max(band.data[i], -lim), lim) }
        }
        return PreparedPhoto(
            revision: .current, color: color, gray: gray, band: band, pyramid: Pyramid(gray, count: 3),
            keypoints: kps, lumaStdDev: Float(sd))
    }

    /// Compares two photos of the same area. Throws `imageTooSmall` for photos under `minimumSide`.
    public static func compare(baseline: RGBImage, probe: RGBImage) throws -> SkinComparisonResult {
        try compare(baseline: prepare(baseline), probe: prepare(probe))
    }

    /// Compares a prepared probe with a prepared baseline. Throws `revisionMismatch` when their revisions
    /// differ or are not this build's.
    public static func compare(baseline: PreparedPhoto, probe: PreparedPhoto) throws -> SkinComparisonResult {
        guard baseline.revision == probe.revision else {
            throw SkinComparisonError.revisionMismatch(baseline.revision, probe.revision)
        }
        guard baseline.revision == .current else {
            throw SkinComparisonError.revisionMismatch(baseline.revision, .current)
        }
        return ChangeAnalysis.run(baseline: baseline, probe: probe)
    }
}
