import Foundation
import Testing

/// The audit itself: a page with one of each fault is reported for each, and a calm page is reported clean.
@Suite(.serialized) struct PageAuditTests {
    static let faulty = """
        <!doctype html><html lang="en"><head><title>Faults</title><meta name="viewport" content="width=device-width"></head>
        <body><main><h1>Faults</h1>
        <button id="unnamed"></button>
        <div style="width: 600px">A row wider than a phone.</div>
        <div style="position: relative; height: 3rem"><span style="position: absolute; left: 0">Before · 2010-05-10</span>
        <span style="position: absolute; left: 2rem">After · 2012-12-06</span></div>
        <p style="font-size: 6px">Tiny label</p>
        <p class="visually-hidden" style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)">Hidden words are not counted</p>
        </main></body></html>
        """
    static let calm = """
        <!doctype html><html lang="en"><head><title>Calm</title><meta name="viewport" content="width=device-width"></head>
        <body><main><h1>Calm</h1><p>One paragraph of readable text.</p><button>Save</button></main></body></html>
        """

    @Test func eachFaultIsFoundAndACalmPageIsClean() async throws {
        let browser = try await WebDriver.launch()
        do {
            // A data: address (about:blank refuses document.write without TrustedHTML); loaded unaudited, then checked here.
            browser.auditing = false
            func load(_ html: String) async throws {
                try await browser.open("data:text/html;charset=utf-8;base64," + Data(html.utf8).base64EncodedString())
            }
            try await load(Self.faulty)
            let found = try await PageAudit.findings(browser, restore: browser.viewport)
            let wide = found.first { $0.width == 1280 }?.findings ?? []
            let narrow = found.first { $0.width == 390 }?.findings ?? []
            #expect(wide.contains { $0.hasPrefix("axe button-name (critical)") && $0.contains("#unnamed") }, "\(wide)")
            #expect(narrow.contains { $0.hasPrefix("scrolls sideways") }, "\(narrow)")
            #expect(narrow.contains { $0.contains("text boxes overlap") && $0.contains("Before") && $0.contains("After") }, "\(narrow)")
            #expect(narrow.contains { $0.contains("text too small to read") && $0.contains("Tiny label") }, "\(narrow)")
            #expect(!narrow.contains { $0.contains("Hidden words") }, "visually hidden text is not measured")
            #expect(!wide.contains { $0.hasPrefix("scrolls sideways") }, "the layout checks run at 390 px only")

            try await load(Self.calm)
            #expect(try await PageAudit.findings(browser, restore: browser.viewport).allSatisfy { $0.findings.isEmpty })
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
