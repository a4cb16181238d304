import CairnCore
import Foundation
import Testing

@testable import Skin

@Test func identicalPhotosAreComparableAndFullySimilar() throws {
    let photo = TestImages.photo(TestImages.scene(seed: 1))
    let r = try SkinComparator.compare(baseline: photo, probe: photo)
    #expect(r.comparable)
    #expect(r.reasonNotComparable == nil)
    #expect(r.revision == ComparisonRevision.current)
    #expect((try #require(r.similarityPercent)).rounded() == 100)
    #expect(r.changeMap.width == SkinComparator.changeMapSide && r.changeMap.values.count == r.changeMap.width * r.changeMap.height)
}

@Test func shiftedRotatedAndBrighterPhotoStillAlignsAndScoresHigh() throws {
    let scene = TestImages.scene(seed: 2)
    let base = TestImages.photo(scene)
    let probe = TestImages.photo(scene, shiftX: 0.04, shiftY: -0.03, rotation: 3, scale: 1.04, gain: 1.1)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(try #require(r.similarityPercent) >= 90)
    #expect(abs(r.alignment.rotationDegrees + 3) < 1)
    #expect(abs(r.alignment.scale - 1.04) < 0.03)
    #expect(r.alignment.method != .failed)
}

@Test func anAddedDarkSpotLowersSimilarityAndShowsInTheChangeMap() throws {
    var scene = TestImages.scene(seed: 3)
    let base = TestImages.photo(scene)
    let sameAgain = TestImages.photo(scene, shiftX: 0.01, rotation: 1)
    // A spot of radius 7 px, 20 px right of the centre.
    TestImages.disc(&scene, side: 360, cx: 199.5, cy: 179.5, r: 7, k: 0.55)
    let withSpot = TestImages.photo(scene, shiftX: 0.01, rotation: 1)
    let noChange = try SkinComparator.compare(baseline: base, probe: sameAgain)
    let change = try SkinComparator.compare(baseline: base, probe: withSpot)
    #expect(change.comparable)
    #expect(change.rawScore > noChange.rawScore)
    #expect(try #require(change.similarityPercent) < 90)
    #expect(try #require(change.similarityPercent) < (try #require(noChange.similarityPercent)))
    // The hottest heat-map cell lies right of the centre, where the spot is.
    let m = change.changeMap
    let hottest = m.values.indices.max { m.values[$0] < m.values[$1] }!
    let hx = hottest % m.width
    let hy = hottest / m.width
    #expect(hx > m.width / 2 && abs(hy - m.height / 2) < m.height / 6)
    #expect(m.values.allSatisfy { ($0 >= 0 && $0 <= 1) || $0 == ChangeMap.notCompared })
    #expect(m.notComparedShare < 0.2)
}

@Test func aPhotoOfSomethingElseIsNotComparable() throws {
    let a = TestImages.photo(TestImages.scene(seed: 4))
    let b = TestImages.photo(TestImages.scene(seed: 5))
    let r = try SkinComparator.compare(baseline: a, probe: b)
    #expect(!r.comparable)
    #expect(r.similarityPercent == nil)
    #expect(r.reasonNotComparable != nil)
}

@Test func fingerprintsOfAnotherRevisionAreRefused() throws {
    let photo = TestImages.photo(TestImages.scene(seed: 6))
    let fp = try SkinComparator.prepare(photo).fingerprint
    #expect(fp.revision == .current)
    let future = ComparisonFingerprint(
        revision: ComparisonRevision(ComparisonRevision.current.number + 1),
        width: fp.width, height: fp.height, pixels: fp.pixels)
    #expect(throws: SkinComparisonError.revisionMismatch(future.revision, .current)) { try SkinComparator.prepare(future) }
    let corrupt = ComparisonFingerprint(revision: .current, width: fp.width, height: fp.height, pixels: [1, 2, 3])
    #expect(throws: SkinComparisonError.corruptFingerprint) { try SkinComparator.prepare(corrupt) }
}

@Test func aPhotosFingerprintIsThePreparedPhotosFingerprint() throws {
    for seed: UInt64 in [8, 9] {
        let photo = TestImages.photo(TestImages.scene(seed: seed))
        #expect(try SkinComparator.fingerprint(of: photo) == SkinComparator.prepare(photo).fingerprint)
    }
    let narrow = TestImages.photo(TestImages.scene(seed: 8)).pixels.prefix(3 * 400 * 20)
    #expect(throws: SkinComparisonError.imageTooSmall) {
        try SkinComparator.fingerprint(of: RGBImage(width: 400, height: 20, pixels: Array(narrow)))
    }
}

@Test func aStoredFingerprintRoundTripsAndComparesLikeThePhoto() throws {
    let scene = TestImages.scene(seed: 7)
    let base = TestImages.photo(scene)
    let probe = TestImages.photo(scene, shiftX: 0.02, rotation: -2)
    let data = try JSONEncoder().encode(try SkinComparator.prepare(base).fingerprint)
    let decoded = try JSONDecoder().decode(ComparisonFingerprint.self, from: data)
    let fromStore = try SkinComparator.compare(baseline: try SkinComparator.prepare(decoded), probe: try SkinComparator.prepare(probe))
    let direct = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(fromStore.comparable && direct.comparable)
    #expect(abs(fromStore.rawScore - direct.rawScore) < 0.1)
}

@Test func tinyPhotosAreRejectedWithAPlainError() throws {
    let tiny = RGBImage(width: 1, height: 1, red: 10, green: 20, blue: 30)
    let ok = TestImages.photo(TestImages.scene(seed: 8))
    #expect(throws: SkinComparisonError.imageTooSmall) { try SkinComparator.compare(baseline: tiny, probe: ok) }
    #expect(throws: SkinComparisonError.imageTooSmall) { try SkinComparator.compare(baseline: ok, probe: tiny) }
    #expect(!SkinComparisonError.imageTooSmall.userMessage.isEmpty)
    let narrow = RGBImage(width: 400, height: SkinComparator.minimumSide - 1, red: 1, green: 2, blue: 3)
    #expect(throws: SkinComparisonError.imageTooSmall) { try SkinComparator.prepare(narrow) }
}

@Test func uniformPhotosWithoutDetailAreNotComparable() throws {
    let flat = RGBImage(width: 200, height: 150, red: 180, green: 140, blue: 120)
    let r = try SkinComparator.compare(baseline: flat, probe: flat)
    #expect(!r.comparable)
    #expect(r.reasonNotComparable == .tooLittleDetail)
    #expect(r.similarityPercent == nil)
    let textured = TestImages.photo(TestImages.scene(seed: 9))
    #expect(try SkinComparator.compare(baseline: textured, probe: flat).reasonNotComparable == .tooLittleDetail)
}

@Test func nonSquareAndSmallPhotosWork() throws {
    let scene = TestImages.scene(seed: 10)
    let p = TestImages.photo(scene, view: 48)
    let r = try SkinComparator.compare(baseline: p, probe: p)
    #expect(r.changeMap.values.count == SkinComparator.changeMapSide * SkinComparator.changeMapSide)
    var wide = [UInt8]()
    let big = TestImages.photo(scene, view: 300)
    for y in 0..<200 { wide += big.pixels[(y * 300 * 3)..<(y * 300 * 3 + 300 * 3)] }
    let w = RGBImage(width: 300, height: 200, pixels: wide)
    let rw = try SkinComparator.compare(baseline: w, probe: w)
    #expect(rw.comparable)
}

@Test func notComparableReasonsHavePlainMessages() {
    for reason in NotComparableReason.allCases {
        #expect(!reason.userMessage.isEmpty)
        #expect(ProductWording.bannedWords(in: reason.userMessage).isEmpty)
    }
    let e = SkinComparisonError.revisionMismatch(ComparisonRevision(1), ComparisonRevision(2))
    #expect(e.userMessage.contains("r1") && e.userMessage.contains("r2"))
}

@Test func aLargeNewSpotDoesNotMakeTheSameAreaNotComparable() throws {
    var scene = TestImages.scene(seed: 21)
    let base = TestImages.photo(scene)
    TestImages.disc(&scene, side: 360, cx: 185, cy: 170, r: 14, k: 0.4)
    let probe = TestImages.photo(scene, shiftX: 0.03, shiftY: 0.02, rotation: 2, scale: 1.03, gain: 0.9)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(abs(r.alignment.scale - 1.03) < 0.03 && abs(r.alignment.rotationDegrees + 2) < 1.5)
    #expect(r.rawScore.isFinite && r.diagnostics.medianChange.isFinite)
    #expect(try #require(r.similarityPercent) < 90)
}

@Test func diagnosticsStoredBeforeRevisionTwoStillDecode() throws {
    let old = Data(#"{"medianChange":0.1,"histogramDistance":0.2}"#.utf8)
    let d = try JSONDecoder().decode(ComparisonDiagnostics.self, from: old)
    #expect(d == ComparisonDiagnostics(medianChange: 0.1, histogramDistance: 0.2))
    #expect(d.displacement == 0 && d.mapScore == 0)
    let now = ComparisonDiagnostics(medianChange: 0.3, histogramDistance: 0.01, mapScore: 0.5, displacement: 0.2)
    #expect(try JSONDecoder().decode(ComparisonDiagnostics.self, from: JSONEncoder().encode(now)) == now)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(ComparisonDiagnostics.self, from: Data("{}".utf8)) }
}

@Test func alignmentSummariesStoredBeforeRevisionFiveDecodeWithoutPerspective() throws {
    let old = Data(
        #"{"method":"keypoints","keypointMatches":40,"keypointInliers":30,"scale":1.01,"rotationDegrees":2,"shiftX":0.01,"shiftY":0,"correlation":0.9}"#
            .utf8)
    let a = try JSONDecoder().decode(AlignmentSummary.self, from: old)
    #expect(a.keystone == 0 && a.perspectiveMessage == nil && a.keypointInliers == 30)
    let slanted = AlignmentSummary(
        method: .keypoints, keypointMatches: 40, keypointInliers: 30, scale: 1, rotationDegrees: 0,
        shiftX: 0, shiftY: 0, correlation: 0.9, keystone: 0.04)
    #expect(try JSONDecoder().decode(AlignmentSummary.self, from: JSONEncoder().encode(slanted)) == slanted)
    #expect(slanted.perspectiveMessage?.contains("4%") == true)
}

/// `image` with its red channel multiplied by `gain` and clipped at white (bright skin a little over-exposed).
private func redClipped(_ image: RGBImage, gain: Float) -> RGBImage {
    var px = image.pixels
    for i in stride(from: 0, to: px.count, by: 3) { px[i] = UInt8(min(255, (Float(px[i]) * gain).rounded())) }
    return RGBImage(width: image.width, height: image.height, pixels: px)
}

@Test func aProbeWithItsRedChannelAtWhiteIsStillComparedByItsDetail() throws {
    let scene = TestImages.scene(seed: 21)
    let base = TestImages.photo(scene)
    let probe = redClipped(TestImages.photo(scene, shiftX: 0.02, rotation: 2), gain: 3)
    let redAtWhite = stride(from: 0, to: probe.pixels.count, by: 3).filter { probe.pixels[$0] == 255 }.count
    #expect(redAtWhite * 2 > probe.width * probe.height)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(r.similarityPercent != nil)
    #expect(r.diagnostics.unclippedFraction > 0.9)
    #expect(r.diagnostics.colourFraction < 0.5)
}

@Test func aProbeWashedOutToWhiteIsTooBrightToCompare() throws {
    let base = TestImages.photo(TestImages.scene(seed: 22))
    // Everything but the darkest tenth of the photo at white in every channel: the dark detail still lines up.
    let greens = stride(from: 1, to: base.pixels.count, by: 3).map { base.pixels[$0] }.sorted()
    let cut = greens[greens.count / 10]
    var px = base.pixels
    for i in stride(from: 0, to: px.count, by: 3) where px[i + 1] > cut {
        px[i] = 255
        px[i + 1] = 255
        px[i + 2] = 255
    }
    let r = try SkinComparator.compare(baseline: base, probe: RGBImage(width: base.width, height: base.height, pixels: px))
    #expect(!r.comparable)
    #expect(r.similarityPercent == nil)
    #expect(r.reasonNotComparable == .tooBright)
    #expect(r.diagnostics.unclippedFraction < Double(Calibration.minimumUnclippedFraction))
}

/// Revision 9: a new mark a few pixels across, too small to lift the change map's 99.5th percentile, reads as a change
/// (below 90%) by the new-mark figure, while the same retake without it stays within the noise floor. The four figures
/// of revision 8 leave the spotted retake within the noise floor too (revision 8 read it 90% or more; raw 1.94 against
/// the floor's 2.0, while revision 9's new-mark figure reads 2.8).
@Test func aSmallNewSpotReadsAsAChangeWhereTheMapPercentileMissesIt() throws {
    let (noChange, change, four) = try newMarkPair(seed: 41, radius: 2.5, blurred: false)
    #expect(change.comparable && noChange.comparable)
    #expect(try #require(noChange.similarityPercent) >= 90)
    #expect(four < Calibration.noiseFloor)
    #expect(try #require(change.similarityPercent) < 90)
}

/// Revision 10: a new mark of 1.5 px radius in a slightly blurred, noisy retake reads as a change (below 90%) by the
/// new-mark figure measured on the blob response of lightness, while the same retake without it stays within the noise
/// floor. The four other figures leave it within the floor, and revision 9's new-mark figure (the peak of the change map
/// over 3x3 grid pixels) read it at 1.67 of its scale against the floor's 2.0 (similarity 90% or more), so the test fails
/// on revision 9 behaviour; revision 10 reads 2.56.
@Test func aNewMarkOfAFewPixelsInABlurredRetakeReadsAsAChange() throws {
    let (noChange, change, four) = try newMarkPair(seed: 43, radius: 1.5, blurred: true)
    #expect(change.comparable && noChange.comparable)
    #expect(try #require(noChange.similarityPercent) >= 90)
    #expect(four < Calibration.noiseFloor)
    #expect(change.diagnostics.spotPeak / Calibration.termScales.spot > Calibration.noiseFloor)
    #expect(try #require(change.similarityPercent) < 90)
}

/// A noisy retake of scene `seed` (shifted, turned, a little brighter; box-blurred once when `blurred`) compared with the
/// scene's first photo, without and with a new dark mark of `radius` scene pixels, and the marked retake's raw score from
/// the four figures other than the new-mark one.
private func newMarkPair(seed: UInt64, radius: Double, blurred: Bool) throws
    -> (noChange: SkinComparisonResult, change: SkinComparisonResult, four: Double)
{
    var scene = TestImages.scene(seed: seed)
    let base = TestImages.photo(scene)
    func retake(_ s: [Float]) -> RGBImage {
        let photo = TestImages.noisy(TestImages.photo(s, shiftX: 0.012, rotation: 1.5, gain: 1.04), amplitude: 6, seed: 9)
        return blurred ? TestImages.blurred(photo, radius: 1, passes: 1) : photo
    }
    let same = retake(scene)
    TestImages.disc(&scene, side: 360, cx: 196.5, cy: 168.5, r: radius, k: 0.45)
    let change = try SkinComparator.compare(baseline: base, probe: retake(scene))
    let d = change.diagnostics
    return (
        try SkinComparator.compare(baseline: base, probe: same), change,
        Calibration.rawScore(map: d.mapScore, displacement: d.displacement, colour: d.colourBlob, texture: d.textureBlob)
    )
}

/// The new-mark figure (revision 10) is the change of the blob response within a grid pixel's shift: a photo against a
/// copy of itself shifted by one grid pixel reads nothing, while the same copy with a small dark mark reads it.
@Test func theNewMarkFigureIgnoresAOnePixelShiftButNotANewMark() {
    let n = 64
    var rng = SeededGenerator(seed: 7)
    var base = [Float](repeating: 50, count: n * n)
    for k in base.indices { base[k] += Float(rng.next() % 4000) / 100 }
    var shifted = base
    for j in 0..<n { for i in 1..<n { shifted[j * n + i] = base[j * n + i - 1] } }
    // Compared away from the borders, where the shifted copy has no data and the blurs reach past the edge.
    let valid = (0..<(n * n)).map { (8..<56).contains($0 % n) && (8..<56).contains($0 / n) }
    let noMark = SpotTerm.measure(baseL: base, probeL: shifted, valid: valid, width: n)
    var marked = shifted
    for j in 30...33 { for i in 30...33 { marked[j * n + i] -= 20 } }
    let mark = SpotTerm.measure(baseL: base, probeL: marked, valid: valid, width: n)
    #expect(noMark < 0.5)
    #expect(mark > 4 * max(noMark, 0.5))
}

@Test func aSpotGrowingNearTheEdgeOfThePhotoReadsLowerThanARetake() throws {
    // Revision 11 compares the whole frame: a spot in the top-left corner of a 320 px photo (its centre 100 px from the
    // middle on each axis, its grown outline 34 px from the edges), wholly outside the central square revisions 1 to 10
    // compared, where its growth read 100%.
    let corner = (x: -100.0, y: -100.0)
    let baseline = try SkinComparator.prepare(SpotSample.photo(spotRadius: 20, retake: 0, offset: corner))
    for retake in UInt64(1)...3 {
        let same = try SkinComparator.compare(
            baseline: baseline, probe: SkinComparator.prepare(SpotSample.photo(spotRadius: 20, retake: retake, offset: corner)))
        let grown = try SkinComparator.compare(
            baseline: baseline, probe: SkinComparator.prepare(SpotSample.photo(spotRadius: 26, retake: retake, offset: corner)))
        let retakeFigure = try #require(same.similarityPercent)
        #expect(retakeFigure >= 90)
        if grown.comparable {
            let grownFigure = try #require(grown.similarityPercent)
            #expect(grownFigure <= retakeFigure - 15, "retake \(retakeFigure), grown \(grownFigure)")
        }
    }
}

@Test func whatTheOtherPhotoDoesNotCoverIsCountedAndNeverReadAsSimilar() throws {
    // The second photo stepped 48 px to the side: the first photo's left 15% is not in it, and the gap is filled with
    // something else.
    let base = SpotSample.photo(spotRadius: 30, retake: 0)
    let w = base.width
    var px = base.pixels
    var rng = SeededGenerator(seed: 7)
    for y in 0..<base.height {
        for x in 0..<w {
            for c in 0..<3 {
                px[(y * w + x) * 3 + c] = x + 48 < w ? base.pixels[(y * w + x + 48) * 3 + c] : UInt8(rng.next() % 256)
            }
        }
    }
    let r = try SkinComparator.compare(baseline: base, probe: RGBImage(width: w, height: base.height, pixels: px))
    #expect(r.comparable)
    #expect(r.diagnostics.outsideFraction > 0.12 && r.diagnostics.outsideFraction < 0.25)
    let message = try #require(r.diagnostics.notComparedMessage)
    #expect(message.contains("lies outside the other photo"))
    // The change map marks the left-out cells, and only near the left edge.
    let m = r.changeMap
    #expect(!m.isCompared(m.width * (m.height / 2)))
    #expect(m.isCompared(m.width * (m.height / 2) + m.width - 1))
    #expect(m.notComparedShare > 0.1 && m.notComparedShare < 0.3)
}

@Test func aChangeMapKeepsItsNotComparedCellsThroughStorage() throws {
    let map = ChangeMap(width: 2, height: 2, values: [0, 0.5, 1, ChangeMap.notCompared])
    let stored = try #require(ChangeMap(width: 2, height: 2, bytes: map.bytes))
    #expect(stored.values[3] == ChangeMap.notCompared && !stored.isCompared(3))
    #expect(abs(stored.values[1] - 0.5) < 0.01 && stored.values[2] == 1 && stored.values[0] == 0)
}

@Test func aFiguresBandFollowsTheCalibrationsNoiseFloorAndItsDouble() {
    // 90% is the noise floor (a retake like the 1-in-20 worst unchanged one), 50% twice it.
    #expect(SimilarityBand(similarityPercent: 100) == .withinRetake)
    #expect(SimilarityBand(similarityPercent: 89.6) == .withinRetake)
    #expect(SimilarityBand(similarityPercent: 89.4) == .moreThanRetake)
    #expect(SimilarityBand(similarityPercent: 50) == .moreThanRetake)
    #expect(SimilarityBand(similarityPercent: 49.4) == .veryDifferent)
    #expect(Calibration.similarityPercent(rawScore: Calibration.noiseFloor) == 90)
    #expect(abs(Calibration.similarityPercent(rawScore: 2 * Calibration.noiseFloor) - 50) < 1e-9)
    for band in SimilarityBand.allCases { #expect(!band.sentence.isEmpty && !band.label.isEmpty) }
}
