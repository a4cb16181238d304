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

@Test func textInterpolatedIntoMarkupIsEscapedByItsTypeAndMarkupIsNot() {
    let name = "<b>\"Tom\" & 'Jerry'</b>"
    let note: HTML? = nil
    let items: [HTML] = ["<li>a</li>", "<li>\(name)</li>"]
    let page: HTML = "<h1>\(name)</h1>\(items)\(note)<p>\(3)</p>"
    #expect(
        page.rendered
            == "<h1>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</h1><li>a</li><li>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</li><p>3</p>"
    )
    #expect(HTML.join(items, separator: "\n").rendered == "<li>a</li>\n<li>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</li>")
    var built: HTML = "<ul>"
    built += "<li>\(name)</li>" as HTML
    #expect(built.rendered.hasPrefix("<ul><li>&lt;b&gt;"))
    #expect(HTML(trusted: "<i>kept</i>").rendered == "<i>kept</i>")
}
