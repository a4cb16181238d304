import Foundation
import Testing

@testable import Skin

@Test func theCubeRootAgreesWithTheLibraryOverTheLabRange() {
    var t: Float = 0.008
    while t < 1.2 {
        let mine = ColorScience.cubeRoot(t)
        let lib = cbrtf(t)
        #expect(abs(mine - lib) <= 2e-6 * lib)
        t *= 1.01
    }
}

@Test func whiteIsLightnessOneHundredWithoutColour() {
    let (l, a, b) = ColorScience.lab(linearR: 1, g: 1, b: 1)
    #expect(abs(l - 100) < 0.01)
    #expect(abs(a) < 0.05 && abs(b) < 0.05)
}
