import Testing

@testable import WebApp

@Test func escapesEveryCharacterThatCanBreakOutOfTextOrAttributes() {
    #expect(
        HTML.escape(#"<script>alert("x") & 'y'</script>"#)
            == "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;")
}

@Test func leavesPlainTextAndEmptyTextUnchanged() {
    #expect(HTML.escape("") == "")
    #expect(HTML.escape("Left forearm, 3 cm · été") == "Left forearm, 3 cm · été")
}

@Test func escapesAlreadyEscapedTextAgainSoNothingIsInterpretedTwice() {
    #expect(HTML.escape("&amp;") == "&amp;amp;")
}
