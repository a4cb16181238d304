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
    let qs = CaptureQualityAnalyzer.analyze(sharp), qb = CaptureQualityAnalyzer.analyze(soft)
    #expect(qb.sharpness < qs.sharpness)
    #expect(qb.isSoft)
    #expect(!qs.isSoft)
}

@Test func clippingIsMeasured() {
    var px = [UInt8](repeating: 128, count: 100 * 100 * 3)
    for i in 0..<(100 * 40 * 3) { px[i] = 255 }           // top 40 rows white
    for i in (100 * 90 * 3)..<(100 * 100 * 3) { px[i] = 0 } // bottom 10 rows black
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
