import CairnCore
import Testing

@Test func disclaimersAreTheDesignDocumentsSentences() {
    #expect(Disclaimer.similarity.text == "A rough visual comparison of two photos, not a medical measurement.")
    #expect(Disclaimer.trend.text == "Shows how much photos differ from the first one, not whether a change is good or bad.")
    #expect(Disclaimer.insight.text == "An association in your own records. It does not show that anything caused a change.")
    #expect(Disclaimer.labelReading.text == "Read from the photo on this device. Check every row before saving.")
}

@Test func bannedWordsAreFoundAsWholeWordsOnly() {
    #expect(ProductWording.bannedWords(in: "This may Diagnose things") == ["diagnose"])
    #expect(ProductWording.bannedWords(in: "a detector found the mouth").isEmpty, "detector is not detect")
    #expect(ProductWording.bannedWords(in: "riskless").isEmpty)
    #expect(ProductWording.bannedWords(in: "").isEmpty)
}

@Test func theProductsOwnWordsAreClean() {
    #expect(ProductWording.bannedWords(in: ProductWording.privacy).isEmpty)
    for disclaimer in Disclaimer.allCases {
        #expect(ProductWording.bannedWords(in: disclaimer.text).isEmpty)
    }
}
