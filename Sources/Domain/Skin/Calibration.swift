import Foundation

/// Thresholds and the raw-score-to-similarity mapping of revisions 4 to 10 (revision 8 changed the texture term only;
/// its 95th percentile on the unchanged typical pairs stayed 0.18; revision 9 added the new-mark figure, `SpotTerm`, and
/// revision 10 measures it anew, with its own scale).
///
/// The raw score is the largest of four change figures, each divided by its 95th percentile on the unchanged
/// typical-capture pairs of the shared set (`../shared/data/skin-pairs`: 2,880 pairs rendered from 16 real photos;
/// `cairn-bench skin`, first section): the change map (ΔE, texture and structure, 99.5th percentile minus median,
/// with the 15x15 term, divided by the square root of the pair's own noise level), the local-displacement block term,
/// and the blob-sized colour and texture terms (`BlobTerms`). So 1 means "as different, by one measure, as the
/// 1-in-20 worst unchanged typical retake". Figures of the revision-4 run on the shared set: unchanged pairs' raw score
/// p50 / p95: careful 0.16 / 0.24, typical 0.26 / 1.62, sloppy 0.93 / 3.31; typical change pairs p25 / p50 / p75
/// 0.87 / 2.01 / 3.44. The bench's leave-bases-out section re-fits the four scales and the noise floor on 12 bases and
/// scores the other 4, to show how far these constants carry to photos they were not fitted on.
///
/// The gate's correlation thresholds (below) come from revision 3's procedural bench and still hold on the shared
/// set: same-subject aligned band-pass correlation under 0.4 in 10 of 2,784 pairs, different subjects p99 0.11.
public enum Calibration {
    /// The noise floor: raw scores up to it read 90% or more ("within session noise"). The typical unchanged 95th
    /// percentile is 1.62 (revision 4) / 1.50 (revision 5) / 1.91 (revision 7, with each term re-measured in units of
    /// its own noise, `termScales`); 2.0, rounded up from revision 7's as 1.7 was from revision 4's, so that a retake
    /// like the 1-in-20 worst typical one still reads 90%. Revision 11 (the whole frame, the scales re-measured): the
    /// typical unchanged 95th percentile is 2.48, so 2.5.
    static let noiseFloor = 2.5
    /// Above the noise floor the similarity falls as a power of the raw score: `tailExponent` is set so that twice the
    /// noise floor reads 50% (log(90/50) / log 2).
    static let tailExponent = log(90.0 / 50.0) / log(2.0)
    /// Change-map level (7x7-smoothed map, before the noise normalisation) drawn at full intensity in the heat map
    /// (a raw score of 1.5 would show about 29%).
    static let displayCeiling = 1.5
    /// Below this aligned band-pass correlation a comparable pair gets no figure (`weakAlignment`, revision 4): a
    /// loose alignment must never produce a confident similarity. Same-subject pairs of the shared set under it: 0.3%.
    static let minimumConfidentCorrelation: Float = 0.28
    /// Below this aligned band-pass correlation the photos are "not comparable" (alignment failed): just under
    /// the same-subject 1st percentile (0.437), above the different-subject 99th percentile (0.097).
    /// The wide fallback alignment (run only below this threshold) must reach it too, on band-pass planes smoothed by
    /// two 3x3 box passes, and in each quadrant of the crop reach `minimumQuadrantCorrelation`. Bench replay of
    /// 2026-11-30 (2,178 pairs), same-subject pairs "not comparable" before / after the detrended wide search, the
    /// band-pass refinement, the quadrant check and `sameContentCorrelation`: careful 0.3% / 0.0%, typical 0.4% / 0.1%,
    /// sloppy 2.2% / 0.4% (15 / 3 of 693); different subjects 100% / 100% (99 of 99).
    static let minimumCorrelation: Float = 0.2
    /// Above this median change the photos differ everywhere (over 5x the same-subject 99th percentile, 0.191), unless
    /// they line up clearly (`sameContentCorrelation`).
    static let maximumMedianChange = 1.0
    /// At or above this aligned correlation the photos show the same detail, so a large median change is not taken as
    /// "different content": it comes from the capture (an over-exposed probe whose highlights are compressed, or a
    /// large change). Twice `minimumCorrelation`. On the bench it keeps 4 sloppy same-subject pairs comparable
    /// (correlation 0.41, 0.89, 0.90, 0.96 with median change 1.0-2.3); a different-subject pair would first have to pass
    /// the alignment gate, which none of the 99 does (highest final correlation 0.12).
    static let sameContentCorrelation: Float = 0.4
    /// The wide fallback alignment is taken only when the correlation of each quadrant of the crop reaches this. On the
    /// bench the 297 refined fallback seeds of the 99 different-subject pairs reached a whole-crop correlation up to
    /// 0.42 (7 of them 0.2 or more) but a lowest quadrant of at most 0.149; the sloppy same-subject pairs the fallback
    /// recovers had a lowest quadrant of 0.31 or more (measured with 6 seeds per pair, a superset of the final 3).
    static let minimumQuadrantCorrelation: Float = 0.25
    /// Below this share of the crop left once pixels at white in every channel (either photo) are set aside, the photos
    /// are "not comparable" (too bright): the map would stand on too few pixels. On the bench the lowest share of a
    /// same-subject pair is 0.53 (1st percentile 0.99), so only a photo washed out far beyond its session noise gets
    /// there. (Setting aside pixels with any one channel at white instead left under 25% of the crop in 6% of
    /// same-subject pairs: bright skin a little over-exposed clips its red channel first.)
    static let minimumUnclippedFraction: Float = 0.25
    /// Above this grey-world histogram distance the colours do not match (over 10x the same-subject 99th percentile).
    static let maximumHistogramDistance = 0.35

    /// The four change figures of a comparison, each in units of its own noise: its 95th percentile on unchanged
    /// typical-capture pairs of the shared set (`cairn-bench skin`, first section). A change shows in one figure
    /// (a new spot in the map, a growth or shift in the displacement, a colour shift in the colour blob, a smoothing in
    /// the texture blob) and the others stay at noise, so the raw score is the largest of the four: 1 means "as
    /// different as the 1-in-20 worst unchanged typical retake by that one measure".
    ///
    /// Revision 9 adds a fifth, the new-mark figure (`SpotTerm`), in units of its 95th percentile on the unchanged typical
    /// pairs whose other four figures read within the noise floor (raw score of the four up to `noiseFloor`). It is the
    /// peak of the change map over the crop: on the unchanged pairs that the other figures already read as changed (a
    /// background or a lesion border lined up a pixel off) the peak is high as well, so its 95th percentile over all of
    /// them (2.0) would measure those pairs, not the noise of a retake, and a small new spot would have to be 1.9 times
    /// that to count (changes caught at 5% false alarms: spot 85.0% -> 86.9% only).
    public struct TermScales: Sendable, Equatable {
        public var map: Double, displacement: Double, colour: Double, texture: Double, spot: Double
        public init(map: Double, displacement: Double, colour: Double, texture: Double, spot: Double) {
            self.map = map
            self.displacement = displacement
            self.colour = colour
            self.texture = texture
            self.spot = spot
        }
    }

    /// The scales (95th percentiles on the 256 unchanged typical pairs of the shared set, rounded to two figures).
    /// Revision 4's (map 1.19, displacement 0.23, colour 3.8, texture 0.63) were kept through revisions 5 and 6, while
    /// the perspective step (5) and the set-aside background edge (6) took much of the noise out of three of the terms:
    /// re-measured on revision 6 they read map 0.726, displacement 0.182, colour 2.38, texture 0.292. A term whose scale
    /// is larger than its noise is under-weighted in the largest-of-four, so a colour shift or a smoothing had to be
    /// 1.6-2.2 times its own noise before it counted. Revision 7 re-measures them, with its own colour and texture terms
    /// (`BlobTerms`): map 0.726, displacement 0.182, colour 1.99, texture 0.183. (Re-measuring alone, on revision 6's
    /// terms, took typical changes caught at 5% false alarms from 59.2% to 67.7%; the bench's leave-bases-out section,
    /// which always re-fits the scales on 12 bases, read 69.8% both ways.)
    /// Revision 9's new-mark scale: 1.41 measured (243 of the 256 unchanged typical pairs read within the noise floor by
    /// the other four figures), rounded to two figures. Revision 10's figure (L* units, `SpotTerm`), measured the same way
    /// on the same 243 pairs: 1.79, rounded to 1.8.
    /// Revision 11 (the whole frame, after the residual field, `ResidualField`) re-measures all five on the shared set:
    /// map 0.644, displacement 0.057 (the field takes out the misfit that set revision 10's 0.18), colour 1.03, texture
    /// 0.211, new mark 1.34 (on the 249 pairs within the noise floor by the other four). With revision 10's scales the
    /// same run read typical AUC 0.936 and 81.6% caught, careful 0.973 / 90.0%, a single nuisance 12.5% above the typical
    /// threshold; with these 0.946 / 80.2%, 0.978 / 94.6%, 0% (smoothing caught 70% -> 53%, colour 73-76% -> 76-79%).
    /// The displacement scale is held at 0.1, not 0.057: on smooth skin (the grown-spot case, `SpotSample`) the field
    /// has little detail to follow, and three of eight plain retakes read a displacement of 0.20, which at 0.057 read
    /// 65-72%; at 0.1 they read over 90%, and the shared set reads 0.948 / 81.5%, careful 0.978 / 94.6%.
    public static let termScales = TermScales(map: 0.64, displacement: 0.1, colour: 1.0, texture: 0.21, spot: 1.3)

    /// The raw score from the change figures (see `TermScales`): the largest, each in units of its noise. `spot` is the
    /// new-mark figure of revision 9 (0 leaves the four figures of revisions 4 to 8).
    public static func rawScore(
        map: Double, displacement: Double, colour: Double, texture: Double, spot: Double = 0,
        scales: TermScales = termScales
    ) -> Double {
        max(
            map / scales.map, displacement / scales.displacement, colour / scales.colour, texture / scales.texture,
            spot / scales.spot)
    }

    /// Monotone mapping of the raw score `s` to a 0-100% visual similarity, in terms of `r = s / noiseFloor`:
    /// up to the noise floor `100 - 10 r` (100% for identical photos, 90% at the floor); above it `90 / r^0.848`, a
    /// gentle tail: 50% at twice the floor, about 23% at 5x, 13% at 10x, 7% at 20x. A strong small change therefore
    /// reads low but not 0%, and two strong changes still read differently.
    static func similarityPercent(rawScore s: Double) -> Double {
        similarityPercent(rawScore: s, noiseFloor: noiseFloor)
    }

    /// The same mapping with another noise floor (the bench's leave-bases-out figures re-fit it on part of the set).
    public static func similarityPercent(rawScore s: Double, noiseFloor floor: Double) -> Double {
        let r = max(0, s) / max(1e-9, floor)
        if r <= 1 { return 100 - 10 * r }
        return 90 / pow(r, tailExponent)
    }
}

/// Where a figure stands against the calibration, in plain words beside every figure (issue 39): the mapping reads 90%
/// at the noise floor (as different as the 1-in-20 worst unchanged typical retake) and 50% at twice it.
public enum SimilarityBand: String, Sendable, Codable, CaseIterable {
    /// 90% or more: up to the noise floor.
    case withinRetake
    /// 50% to under 90%: above the noise floor, up to twice it.
    case moreThanRetake
    /// Under 50%: more than twice the noise floor.
    case veryDifferent

    /// The band of a similarity figure (0...100).
    public init(similarityPercent s: Double) {
        let r = s.rounded()
        self = r >= 90 ? .withinRetake : r >= 50 ? .moreThanRetake : .veryDifferent
    }

    /// A few words for a list line.
    public var label: String {
        switch self {
        case .withinRetake: return "within retake difference"
        case .moreThanRetake: return "more than a retake"
        case .veryDifferent: return "very different"
        }
    }

    /// The sentence beside the figure.
    public var sentence: String {
        switch self {
        case .withinRetake: return "Within what two photos of the same unchanged spot usually differ."
        case .moreThanRetake: return "More different than two photos of the same unchanged spot usually are."
        case .veryDifferent: return "Very different: more than twice what two photos of the same unchanged spot usually differ."
        }
    }
}
