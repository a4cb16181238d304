import CairnCore
import Testing

@testable import Skin

@Test func aWellExposedSharpPhotoRaisesNoFlag() {
    let q = CaptureQualityAnalyzer.analyze(TestImages.photo(TestImages.scene(seed: 20), view: 256))
    #expect(q.isGood, "\(q)")
    #expect(q.meanLuminance > 0.3 && q.meanLuminance < 0.8)
}

@Test func aDarkFrameIsFlaggedDark() {
    let q = CaptureQualityAnalyzer.analyze(TestImages.photo(TestImages.scene(seed: 21), view: 256, gain: 0.15))
    #expect(q.isTooDark)
    #expect(!q.isTooBright)
    #expect(!q.isGood)
}

@Test func aBlurredFrameIsFlaggedSoftAndScoresLowerSharpness() {
    let sharp = TestImages.photo(TestImages.scene(seed: 22), view: 256)
    let soft = TestImages.blurred(sharp, radius: 2, passes: 2)
    let qs = CaptureQualityAnalyzer.analyze(sharp)
    let qb = CaptureQualityAnalyzer.analyze(soft)
    #expect(qb.sharpness < qs.sharpness)
    #expect(qb.isSoft)
    #expect(!qs.isSoft)
}

@Test func clippingIsMeasured() {
    var px = [UInt8](repeating: 128, count: 100 * 100 * 3)
    for i in 0..<(100 * 40 * 3) { px[i] = 255 }  // top 40 rows white
    for i in (100 * 90 * 3)..<(100 * 100 * 3) { px[i] = 0 }  // bottom 10 rows black
    let q = CaptureQualityAnalyzer.analyze(RGBImage(width: 100, height: 100, pixels: px))
    #expect(abs(q.brightClippedFraction - 0.4) < 1e-9)
    #expect(abs(q.darkClippedFraction - 0.1) < 1e-9)
    #expect(q.isClipped)
}

@Test func aOnePixelFrameIsScoredWithoutCrashing() {
    let q = CaptureQualityAnalyzer.analyze(RGBImage(width: 1, height: 1, red: 0, green: 0, blue: 0))
    #expect(q.isTooDark)
    #expect(q.sharpness == 0)
    #expect(q.darkClippedFraction == 1)
}

@Test func theSameViewTwiceReadsSteadyEvenWithAnExposureChange() {
    let scene = TestImages.scene(seed: 30)
    let a = TestImages.photo(scene, view: 320)
    let b = TestImages.photo(scene, view: 320, gain: 0.8)
    #expect(CaptureQualityAnalyzer.steadiness(previous: a, current: a).displacement < 1e-9)
    let s = CaptureQualityAnalyzer.steadiness(previous: a, current: b)
    print("steadiness, exposure change: \(s.displacement)")
    #expect(s.isSteady, "\(s)")
}

@Test func aTremorReadsSteadyAndAMovementOfSomePercentOfTheFrameDoesNot() {
    let scene = TestImages.scene(seed: 31)
    let a = TestImages.photo(scene, view: 320)
    let tremor = CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(scene, view: 320, shiftX: 0.004))
    let moved = CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(scene, view: 320, shiftX: 0.05, shiftY: 0.02))
    let turned = CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(scene, view: 320, rotation: 4))
    print("steadiness, procedural skin: tremor \(tremor.displacement), moved \(moved.displacement), turned \(turned.displacement)")
    #expect(tremor.isSteady, "\(tremor)")
    #expect(!moved.isSteady, "\(moved)")
    #expect(!turned.isSteady, "\(turned)")
    // A larger movement reads larger.
    let far = CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(scene, view: 320, shiftX: 0.02))
    let near = CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(scene, view: 320, shiftX: 0.01))
    #expect(far.displacement > near.displacement && near.displacement > tremor.displacement)
}

@Test func anotherSceneOrAnotherFrameShapeIsNotSteady() {
    let a = TestImages.photo(TestImages.scene(seed: 32), view: 320)
    #expect(!CaptureQualityAnalyzer.steadiness(previous: a, current: TestImages.photo(TestImages.scene(seed: 33), view: 320)).isSteady)
    let wide = RGBImage(width: 320, height: 180, red: 120, green: 100, blue: 90)
    #expect(CaptureQualityAnalyzer.steadiness(previous: a, current: wide).displacement == .infinity)
    let tiny = RGBImage(width: 4, height: 4, red: 0, green: 0, blue: 0)
    #expect(!CaptureQualityAnalyzer.steadiness(previous: tiny, current: tiny).isSteady)
}

@Test func aFlatViewWithSensorNoiseReadsSteady() {
    var rng = TestImages.Rng(state: 34)
    func noisy() -> RGBImage {
        var px = [UInt8](repeating: 0, count: 320 * 240 * 3)
        for i in px.indices { px[i] = UInt8(150 + Int(rng.next() * 9) - 4) }
        return RGBImage(width: 320, height: 240, pixels: px)
    }
    let s = CaptureQualityAnalyzer.steadiness(previous: noisy(), current: noisy())
    print("steadiness, flat noise: \(s.displacement)")
    #expect(s.isSteady, "\(s)")
}

@Test func theFlagsReadInOneWordingForTheBadgeAndThePhotoLog() {
    let good = CaptureQualityAnalyzer.analyze(TestImages.photo(TestImages.scene(seed: 20), view: 256))
    #expect(good.lightWords == "Light looks even" && good.focusWords == "Looks sharp" && good.isLightGood)
    #expect(good.summary == "light looks even, looks sharp")
    let dark = CaptureQualityAnalyzer.analyze(TestImages.photo(TestImages.scene(seed: 21), view: 256, gain: 0.15))
    #expect(dark.lightWords == "Too dark" && !dark.isLightGood)
    #expect(dark.summary.hasPrefix("too dark, "))
    #expect(FrameSteadiness(displacement: 0).words == "Holding still")
    #expect(FrameSteadiness(displacement: 0.2).words == "Moving: hold still")
}
