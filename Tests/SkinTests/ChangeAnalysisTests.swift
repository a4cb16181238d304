import CairnCore
import Foundation
import Testing

@testable import Skin

/// A 128 x 128 plane of seeded band-limited texture (L units, 0...100 scale like the crops).
private func texturePlane(seed: UInt64, side: Int = 128) -> Plane {
    var rng = SeededGenerator(seed: seed)
    var p = Plane(width: side, height: side, data: (0..<(side * side)).map { _ in Float(50 + 8 * (rng.unit() - 0.5)) })
    p = p.boxBlurred(radius: 1)
    return p
}

@Test func identicalCropsShowNoLocalDisplacement() {
    let p = texturePlane(seed: 11)
    let valid = [Bool](repeating: true, count: p.data.count)
    #expect(BlockTerms.displacement(base: p, probe: p, valid: valid) == 0)
}

@Test func aLocallyShiftedRegionRaisesTheDisplacementTerm() {
    let base = texturePlane(seed: 12)
    var probe = base
    // Shift a 40 x 40 region by 3 px to the right (its content comes from 3 px to the left).
    for y in 44..<84 { for x in 44..<84 { probe.data[y * 128 + x] = base.data[y * 128 + x - 3] } }
    let valid = [Bool](repeating: true, count: base.data.count)
    let moved = BlockTerms.displacement(base: base, probe: probe, valid: valid)
    #expect(moved > 0.3)
    // The same shift everywhere is global (alignment's job), not local: far smaller.
    var global = base
    for y in 0..<128 { for x in 3..<128 { global.data[y * 128 + x] = base.data[y * 128 + x - 3] } }
    #expect(BlockTerms.displacement(base: base, probe: global, valid: valid) < moved / 2)
}

@Test func cropsWithoutEnoughValidBlocksGiveNoDisplacement() {
    let base = texturePlane(seed: 13)
    let none = [Bool](repeating: false, count: base.data.count)
    #expect(BlockTerms.displacement(base: base, probe: texturePlane(seed: 14), valid: none) == 0)
    let tiny = texturePlane(seed: 15, side: 16)
    #expect(BlockTerms.displacement(base: tiny, probe: tiny, valid: [Bool](repeating: true, count: 256)) == 0)
}

@Test func aPhotoTurnedFifteenDegreesAndZoomedFifteenPercentStillLinesUp() throws {
    let scene = TestImages.scene(seed: 31)
    let base = TestImages.photo(scene)
    // Blurred as a sloppy hand-held photo is. (On these clean test scenes keypoints or the normal path already line
    // it up; the wide grid's own reach is checked by the coarse-search test below.)
    let probe = TestImages.blurred(TestImages.photo(scene, shiftX: 0.02, shiftY: -0.02, rotation: 15, scale: 1.15, gain: 1.05), radius: 2)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(r.reasonNotComparable == nil)
    #expect(abs(r.alignment.rotationDegrees + 15) < 1.5)
    #expect(abs(r.alignment.scale - 1.15) < 0.04)
    #expect(r.alignment.correlation >= Double(Calibration.minimumCorrelation))
}

@Test func theWideSearchDoesNotMakeADifferentSubjectComparable() throws {
    let base = TestImages.photo(TestImages.scene(seed: 31))
    let other = TestImages.blurred(TestImages.photo(TestImages.scene(seed: 32), rotation: 15, scale: 1.15), radius: 2)
    let r = try SkinComparator.compare(baseline: base, probe: other)
    #expect(!r.comparable)
    #expect(r.reasonNotComparable == .alignmentFailed)
    #expect(r.similarityPercent == nil)
}

@Test func theWideCoarseSearchReachesATurnAndZoomTheNormalGridDoesNot() {
    let scene = TestImages.scene(seed: 33)
    func coarse(_ image: RGBImage) -> Plane {
        SkinComparator.prepare(color: ColorPlanes.resampled(image, shortSide: SkinComparator.workingSide)).pyramid.levels[2]
    }
    let base = coarse(TestImages.photo(scene))
    let probe = coarse(TestImages.photo(scene, rotation: 17, scale: 1.2))
    let c = Float(base.width - 1) / 2
    let grid = IntensityAlignment.wideGrid
    let wide = IntensityAlignment.coarseSearch(
        base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c,
        scales: grid.scales, degrees: grid.degrees, keep: 3)
    let normal = IntensityAlignment.coarseSearch(base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c)
    #expect(wide.count == 3 && normal.count == 1)
    // The best wide seed lies within half a grid step of the true turn (-17 degrees) and zoom (1.2).
    let halfTurn = (grid.degrees[1] - grid.degrees[0]) / 2
    let halfZoom = logf(grid.scales[1] / grid.scales[0]) / 2
    #expect(abs(wide[0].rotationDegrees + 17) <= halfTurn + 0.01 && abs(logf(wide[0].scale / 1.2)) <= halfZoom + 0.01)
    #expect(abs(normal[0].rotationDegrees + 17) > halfTurn || abs(logf(normal[0].scale / 1.2)) > halfZoom)
    #expect(IntensityAlignment.coarseSearch(base: base, probe: probe, cx: c, cy: c, probeCX: c, probeCY: c, keep: 0).count == 1)
}

@Test func theRawScoreIsWeighedAgainstThePairsOwnNoise() {
    let reference = ChangeAnalysis.Tuning.noiseReference
    // A pair as noisy as the bench's typical no-change pair keeps its score.
    #expect(abs(ChangeAnalysis.Tuning.noiseFactor(spread: reference) - 1) < 1e-12)
    // Quieter pairs weigh a change more, noisier ones less, by the square root of the relative noise.
    var last = Double.infinity
    for i in 0...20 {
        let f = ChangeAnalysis.Tuning.noiseFactor(spread: reference * Double(i) / 4)
        #expect(f < last)
        last = f
    }
    #expect(
        abs(
            ChangeAnalysis.Tuning.noiseFactor(spread: 4 * reference) / ChangeAnalysis.Tuning.noiseFactor(spread: 16 * reference)
                - ((ChangeAnalysis.Tuning.noiseConstant + 16) / (ChangeAnalysis.Tuning.noiseConstant + 4)).squareRoot()) < 1e-9)
    // A noiseless pair (an identical photo) is bounded, and a spread below 0 cannot occur in effect.
    let quiet = ChangeAnalysis.Tuning.noiseFactor(spread: 0)
    #expect(quiet.isFinite && quiet < 4)
    #expect(ChangeAnalysis.Tuning.noiseFactor(spread: -1) == quiet)
}

/// The photo of `scene` as a sloppy hand-held capture: blurred, lit unevenly (brighter to the right) and over-exposed.
private func sloppy(_ image: RGBImage, gain: Float) -> RGBImage {
    let blurred = TestImages.blurred(image, radius: 2)
    var px = blurred.pixels
    for y in 0..<blurred.height {
        for x in 0..<blurred.width {
            let g = gain * (0.85 + 0.3 * Float(x) / Float(blurred.width - 1))
            for ch in 0..<3 {
                let i = (y * blurred.width + x) * 3 + ch
                px[i] = UInt8(min(255, (Float(px[i]) * g).rounded()))
            }
        }
    }
    return RGBImage(width: blurred.width, height: blurred.height, pixels: px)
}

@Test func aBlurredUnevenlyLitOverExposedPhotoOfTheSameAreaStaysComparable() throws {
    let scene = TestImages.scene(seed: 34)
    let base = TestImages.photo(scene)
    let probe = sloppy(TestImages.photo(scene, shiftX: 0.05, shiftY: 0.03, rotation: 7, scale: 1.08), gain: 1.4)
    let r = try SkinComparator.compare(baseline: base, probe: probe)
    #expect(r.comparable)
    #expect(r.reasonNotComparable == nil)
    #expect(abs(r.alignment.rotationDegrees + 7) < 1.5)
}

@Test func aBlurredUnevenlyLitOverExposedPhotoOfAnotherSubjectStaysNotComparable() throws {
    let base = TestImages.photo(TestImages.scene(seed: 34))
    for seed: UInt64 in [35, 36] {
        let r = try SkinComparator.compare(
            baseline: base, probe: sloppy(TestImages.photo(TestImages.scene(seed: seed), rotation: 7, scale: 1.08), gain: 1.4))
        #expect(!r.comparable)
        #expect(r.similarityPercent == nil)
        #expect(r.reasonNotComparable == .alignmentFailed)
    }
}

/// A `view` x `view` photo of the scene from a slanted camera: the magnification changes by `keystone` from the
/// centre to the top and bottom edges (the far edge smaller), as a phone tilted about its horizontal axis sees it.
private func slantedPhoto(_ scene: [Float], side: Int = 360, view: Int = 240, keystone: Double) -> RGBImage {
    var out = [UInt8](repeating: 0, count: view * view * 3)
    let c = Double(view - 1) / 2
    let sc = Double(side - 1) / 2
    for y in 0..<view {
        for x in 0..<view {
            let xr = Double(x) - c
            let yr = Double(y) - c
            let d = 1 - keystone * yr / c
            let u = xr / d + sc
            let v = yr / d + sc
            let x0 = min(max(Int(u), 0), side - 2)
            let y0 = min(max(Int(v), 0), side - 2)
            let tx = Float(min(max(u - Double(x0), 0), 1))
            let ty = Float(min(max(v - Double(y0), 0), 1))
            for ch in 0..<3 {
                let p00 = scene[(y0 * side + x0) * 3 + ch]
                let p01 = scene[(y0 * side + x0 + 1) * 3 + ch]
                let p10 = scene[((y0 + 1) * side + x0) * 3 + ch]
                let p11 = scene[((y0 + 1) * side + x0 + 1) * 3 + ch]
                let value = (p00 * (1 - tx) + p01 * tx) * (1 - ty) + (p10 * (1 - tx) + p11 * tx) * ty
                out[(y * view + x) * 3 + ch] = UInt8(min(max(value * 255, 0), 255).rounded())
            }
        }
    }
    return RGBImage(width: view, height: view, pixels: out)
}

@Test func aSlantedPhoneIsFollowedByAPerspectiveAndNotReadAsAChange() throws {
    let scene = TestImages.scene(seed: 41)
    let baseline = TestImages.photo(scene)
    let slanted = try SkinComparator.compare(baseline: baseline, probe: slantedPhoto(scene, keystone: 0.05))
    #expect(slanted.comparable)
    #expect(slanted.alignment.keystone > 0.02, "keystone \(slanted.alignment.keystone)")
    #expect((slanted.similarityPercent ?? 0) >= 90, "\(slanted.similarityPercent ?? -1)%")
    // A photo from straight on is left a similarity.
    let straight = try SkinComparator.compare(baseline: baseline, probe: TestImages.photo(scene, shiftX: 0.02))
    #expect(straight.alignment.keystone < 0.01, "keystone \(straight.alignment.keystone)")
}

@Test func aNewSpotIsNotAlignedAwayByThePerspective() throws {
    var scene = TestImages.scene(seed: 42)
    let baseline = TestImages.photo(scene)
    TestImages.disc(&scene, side: 360, cx: 185, cy: 175, r: 12, k: 0.45)
    let spotted = try SkinComparator.compare(baseline: baseline, probe: slantedPhoto(scene, keystone: 0.05))
    #expect(spotted.comparable)
    #expect((spotted.similarityPercent ?? 100) < 70, "\(spotted.similarityPercent ?? -1)%")
}

@Test func theHomographyMapsTheCentreToItsShiftAndMatchesTheSimilarityWithoutPerspective() {
    var w = Warp(a: 1.02, b: 0.03, tx: 50, ty: 60, cx: 40, cy: 40)
    let (x, y) = w.apply(45, 33)
    w.g = 1e-9
    let (xp, yp) = w.apply(45, 33)
    #expect(abs(x - xp) < 1e-3 && abs(y - yp) < 1e-3)
    w.g = 0.001
    w.h = -0.0005
    let (cx, cy) = w.apply(40, 40)
    #expect(cx == 50 && cy == 60)
    // Expressing it at a coarser level and back is the same map.
    let back = w.atLevel(scale: 2).fromLevel(scale: 2)
    let (u1, v1) = w.apply(70, 10)
    let (u2, v2) = back.apply(70, 10)
    #expect(abs(u1 - u2) < 1e-3 && abs(v1 - v2) < 1e-3)
    // At the coarser level a point maps to the coarse image of its image.
    let coarse = w.atLevel(scale: 2)
    let (uc, vc) = coarse.apply((70 + 0.5) / 2 - 0.5, (10 + 0.5) / 2 - 0.5)
    #expect(abs(uc - ((u1 + 0.5) / 2 - 0.5)) < 1e-3 && abs(vc - ((v1 + 0.5) / 2 - 0.5)) < 1e-3)
}

/// Revision 7's blob-sized texture term counts a loss of texture only: a smoothed patch raises it, while a patch made
/// rougher (as sensor noise or JPEG blocking make a retake) leaves it where an unchanged pair is.
@Test func aSmoothedPatchRaisesTheTextureTermAndARougherOneDoesNot() {
    let n = 128
    // Skin-like detail of a few L units.
    var base = texturePlane(seed: 21)
    for k in base.data.indices { base.data[k] = 50 + 3 * (base.data[k] - 50) }
    let flatLab = [base.data, [Float](repeating: 10, count: n * n), [Float](repeating: 15, count: n * n)]
    let valid = [Bool](repeating: true, count: n * n)
    func texture(_ probe: Plane) -> Double {
        BlobTerms.measure(
            bLab: flatLab, pLab: [probe.data, flatLab[1], flatLab[2]], colourValid: valid, detailValid: valid,
            bBand: base.highPassed(radius: 2, passes: 2), pBand: probe.highPassed(radius: 2, passes: 2), grid: ComparisonGrid(width: n, height: n)
        ).texture
    }
    let unchanged = texture(base)
    let blurred = base.boxBlurred(radius: 2).boxBlurred(radius: 2)
    var smoothed = base
    var rougher = base
    for y in 40..<88 {
        for x in 40..<88 {
            smoothed.data[y * n + x] = blurred.data[y * n + x]
            rougher.data[y * n + x] = 50 + 2 * (base.data[y * n + x] - 50)
        }
    }
    #expect(texture(smoothed) > unchanged + 0.5)
    #expect(texture(rougher) < unchanged + 0.05)
}

/// The blob-sized colour term: a colour shift of a few CIELAB units over a patch raises it well above an unchanged pair.
@Test func aColourShiftOverAPatchRaisesTheColourTerm() {
    let n = 128
    let base = texturePlane(seed: 22)
    let lab = [base.data, [Float](repeating: 10, count: n * n), [Float](repeating: 15, count: n * n)]
    let valid = [Bool](repeating: true, count: n * n)
    var shifted = lab
    for y in 40..<88 {
        for x in 40..<88 {
            shifted[1][y * n + x] += 6
            shifted[2][y * n + x] += 1.5
        }
    }
    let band = base.highPassed(radius: 2, passes: 2)
    let same = BlobTerms.measure(
        bLab: lab, pLab: lab, colourValid: valid, detailValid: valid, bBand: band, pBand: band, grid: ComparisonGrid(width: n, height: n)
    ).colour
    let changed = BlobTerms.measure(
        bLab: lab, pLab: shifted, colourValid: valid, detailValid: valid, bBand: band, pBand: band, grid: ComparisonGrid(width: n, height: n)
    ).colour
    #expect(same < 0.01)
    #expect(changed > 4)
}

/// Revision 8: the texture term is measured against the crop-wide relation of the two photos' texture energies. A
/// retake with more sensor noise (the same energy added everywhere) over skin whose detail is strong in one part and
/// faint in the rest is not a local smoothing (revision 7 read the strong part as one: the noise lifted the faint
/// part's log energy ratio, and with it the median, far more), while a smoothed patch in such a retake still counts.
@Test func aNoisierRetakeIsNotReadAsSmoothingButASmoothedPatchInItIs() {
    let n = 128
    var base = texturePlane(seed: 23)
    // Strong detail in the left 30% of the crop, faint detail in the rest.
    for y in 0..<n {
        for x in 0..<n {
            let k = y * n + x
            base.data[k] = 50 + (x < 38 ? 3 : 0.5) * (base.data[k] - 50)
        }
    }
    var rng = SeededGenerator(seed: 99)
    let noise = (0..<(n * n)).map { _ in Float(5.2 * (rng.unit() - 0.5)) }
    let flat = [[Float](repeating: 10, count: n * n), [Float](repeating: 15, count: n * n)]
    let valid = [Bool](repeating: true, count: n * n)
    func texture(_ probe: Plane) -> Double {
        BlobTerms.measure(
            bLab: [base.data] + flat, pLab: [probe.data] + flat, colourValid: valid, detailValid: valid,
            bBand: base.highPassed(radius: 2, passes: 2), pBand: probe.highPassed(radius: 2, passes: 2), grid: ComparisonGrid(width: n, height: n)
        ).texture
    }
    var noisier = base
    for k in noisier.data.indices { noisier.data[k] += noise[k] }
    let blurred = base.boxBlurred(radius: 2).boxBlurred(radius: 2)
    var smoothed = base
    for y in 44..<84 { for x in 4..<34 { smoothed.data[y * n + x] = blurred.data[y * n + x] } }
    for k in smoothed.data.indices { smoothed.data[k] += noise[k] }
    #expect(texture(noisier) < 0.1)
    #expect(texture(smoothed) > texture(noisier) + 0.25)
}
