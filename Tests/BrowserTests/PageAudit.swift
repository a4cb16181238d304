import Foundation
import Testing

/// The check every page gets in every state a browser test reaches: axe-core at 1280 and 390 px (any violation of
/// impact serious or critical fails), and at 390 px no sideways scrolling, no two visible text boxes on top of
/// each other and no text drawn smaller than `minimumTextHeight`.
///
/// `WebDriver.open` runs it after every page load, so a page a test visits is covered without the test asking;
/// a test calls `browser.audit("state")` itself after a click that changes the page in place or lands on a new
/// state (an error beside its field, a notice). A state already audited in this session (same address, same
/// markup) is not audited again.
enum PageAudit {
    /// Where `scripts/install-deps.sh --with-test-tools` unpacks axe-core (`CAIRN_AXE_JS` overrides it).
    static var axePath: String {
        if let path = ProcessInfo.processInfo.environment["CAIRN_AXE_JS"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-tools/axe.min.js").path
    }

    /// axe.min.js, read once. A missing file is a failure of its own, with what to run.
    static let axeSource: Result<String, WebDriver.Failure> = {
        guard let data = FileManager.default.contents(atPath: axePath), !data.isEmpty else {
            return .failure(
                WebDriver.Failure(
                    description: """
                        axe-core is missing at \(axePath): run `scripts/install-deps.sh --with-test-tools` (or `make test`), \
                        which unpacks axe.min.js from the axe-playwright-python wheel, or point CAIRN_AXE_JS at an axe.min.js.
                        """))
        }
        return .success(String(decoding: data, as: UTF8.self))
    }()

    /// The widths every state is checked at; the layout checks run at the narrow one.
    static let widths = [1280, 390]
    static let narrow = 390
    /// Rendered text boxes shorter than this (CSS px, about a 10 px font) count as unreadably small.
    static let minimumTextHeight = 11.0

    /// What identifies a state: the address and a hash of the markup, so the same page reached twice is audited once.
    static let stateKey = """
        var s = document.documentElement.outerHTML, h = 0;
        for (var i = 0; i < s.length; i++) { h = (h * 31 + s.charCodeAt(i)) | 0; }
        return (document.contentType || '') + ' ' + location.href + ' ' + h;
        """

    /// axe with the rules of WCAG 2.x A and AA and best practices; only serious and critical findings come back.
    /// "no axe" when the page has changed since axe was put in (a navigation a click started can land between the
    /// check and the run); `violations(_:source:)` then puts it in again.
    static let runAxe = """
        if (typeof window.axe !== 'object') { return 'no axe'; }
        return axe.run(document, { resultTypes: ['violations'] }).then(function (r) {
          return r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
            .map(function (v) {
              return { id: v.id, impact: v.impact, help: v.help,
                       targets: v.nodes.slice(0, 6).map(function (n) { return n.target.join(' '); }), count: v.nodes.length };
            });
        });
        """

    /// Sideways overflow, overlapping text boxes and tiny text. Each text node's line boxes are clipped by every
    /// ancestor that clips its overflow (a scroll box, a line clamp), so text scrolled or clamped out of sight
    /// does not count; hidden, visually hidden and transparent text is skipped.
    static let layout = """
        var minimum = arguments[0];
        // Against the layout viewport: under mobile emulation a page that overflows widens innerWidth to fit it.
        var out = { overflow: document.scrollingElement.scrollWidth - Math.min(window.innerWidth, document.documentElement.clientWidth), overlaps: [], tiny: [] };
        function describe(el) {
          var s = el.tagName.toLowerCase();
          if (el.id) { s += '#' + el.id; } else if (el.classList.length) { s += '.' + Array.prototype.join.call(el.classList, '.'); }
          return s;
        }
        var clips = new Map();
        function clipOf(el) {
          if (clips.has(el)) { return clips.get(el); }
          var parent = el.parentElement, clip = parent ? clipOf(parent) : { l: -1e9, t: -1e9, r: 1e9, b: 1e9 };
          var cs = getComputedStyle(el);
          if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
            var b = el.getBoundingClientRect();
            clip = { l: Math.max(clip.l, b.left), t: Math.max(clip.t, b.top), r: Math.min(clip.r, b.right), b: Math.min(clip.b, b.bottom) };
          }
          clips.set(el, clip);
          return clip;
        }
        var boxes = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node, index = 0;
        while ((node = walker.nextNode())) {
          var text = node.data.trim();
          var el = node.parentElement;
          if (!text || !el || el.closest('.visually-hidden, script, style, noscript, template, select, textarea, .skip-link')) { continue; }
          if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) { continue; }
          var range = document.createRange();
          range.selectNodeContents(node);
          var clip = clipOf(el), rects = range.getClientRects();
          index += 1;
          for (var i = 0; i < rects.length; i++) {
            var r = rects[i];
            var box = { l: Math.max(r.left, clip.l), t: Math.max(r.top, clip.t), r: Math.min(r.right, clip.r), b: Math.min(r.bottom, clip.b) };
            if (box.r - box.l < 2 || box.b - box.t < 2) { continue; }
            if (r.height < minimum && out.tiny.length < 8) {
              out.tiny.push(describe(el) + ' "' + text.slice(0, 30) + '" ' + r.height.toFixed(1) + ' px tall');
            }
            boxes.push({ box: box, node: index, el: el, text: text.slice(0, 30) });
          }
        }
        boxes.sort(function (a, b) { return a.box.t - b.box.t; });
        for (var a = 0; a < boxes.length && out.overlaps.length < 8; a++) {
          for (var b = a + 1; b < boxes.length && boxes[b].box.t < boxes[a].box.b; b++) {
            var p = boxes[a], q = boxes[b];
            if (p.node === q.node) { continue; }
            var w = Math.min(p.box.r, q.box.r) - Math.max(p.box.l, q.box.l);
            var h = Math.min(p.box.b, q.box.b) - Math.max(p.box.t, q.box.t);
            if (w > 2 && h > 3) {
              out.overlaps.push(describe(p.el) + ' "' + p.text + '" and ' + describe(q.el) + ' "' + q.text + '"');
              break;
            }
          }
        }
        return out;
        """

    /// Audits the page the browser shows now, at each width, then puts the viewport back; records a failure per
    /// width with every finding.
    static func audit(_ browser: WebDriver, state: String, viewport restore: WebDriver.Viewport) async throws {
        guard case .success = axeSource else {
            if case .failure(let failure) = axeSource { Issue.record(Comment(rawValue: failure.description)) }
            return
        }
        let key = try await browser.evaluate(stateKey) as? String ?? ""
        guard key.hasPrefix("text/html "), browser.auditedStates.insert(key).inserted else { return }
        let address = try await browser.evaluate("return location.pathname + location.search") as? String ?? "?"
        let page = state.isEmpty ? address : "\(address) (\(state))"
        for (width, found) in try await findings(browser, restore: restore) {
            browser.auditLog.append(contentsOf: found.isEmpty ? ["\(page) @\(width): clean"] : found.map { "\(page) @\(width): \($0)" })
            if !found.isEmpty {
                Issue.record(Comment(rawValue: "\(page) at \(width) px:\n  " + found.joined(separator: "\n  ")))
            }
        }
    }

    /// axe's serious and critical violations on the page shown now, axe put into the page first when it is not there
    /// (a new page, or one that replaced the page axe was put into a moment before).
    static func violations(_ browser: WebDriver, source: String) async throws -> [[String: Any]] {
        for _ in 0..<3 {
            let result = try await browser.evaluate(runAxe)
            if let violations = result as? [[String: Any]] { return violations }
            guard result as? String == "no axe" else { return [] }
            _ = try await browser.evaluate(source + "\nreturn 0")
        }
        throw WebDriver.Failure(description: "axe could not be put into the page: it kept changing")
    }

    /// What the checks find on the page as it is, per width (axe's serious and critical violations, and at the
    /// narrow width overflow, overlapping and tiny text).
    static func findings(_ browser: WebDriver, restore: WebDriver.Viewport) async throws -> [(width: Int, findings: [String])] {
        let source = try axeSource.get()
        var out: [(Int, [String])] = []
        for width in widths {
            try await browser.setViewport(.init(width: width, height: width == narrow ? 844 : 900, mobile: width == narrow))
            // Two frames: the layout has settled at the new width before anything is measured.
            _ = try await browser.evaluate(
                "return new Promise(function (k) { requestAnimationFrame(function () { requestAnimationFrame(function () { k(0); }); }); })")
            let violations = try await Self.violations(browser, source: source)
            var found = violations.map { v in
                let targets = (v["targets"] as? [String] ?? []).joined(separator: " | ")
                return "axe \(v["id"] ?? "?") (\(v["impact"] ?? "?")): \(v["help"] ?? "") [\(v["count"] ?? 0)]: \(targets)"
            }
            if width == narrow {
                let result = try await browser.evaluate(layout, arguments: [minimumTextHeight]) as? [String: Any] ?? [:]
                if let overflow = result["overflow"] as? Int, overflow > 0 {
                    found.append("scrolls sideways: the page is \(overflow) px wider than the \(width) px viewport")
                }
                found += (result["overlaps"] as? [String] ?? []).map { "text boxes overlap: \($0)" }
                found += (result["tiny"] as? [String] ?? []).map { "text too small to read: \($0)" }
            }
            out.append((width, found))
        }
        try await browser.setViewport(restore)
        return out
    }

    /// Appends this session's findings to `CAIRN_AUDIT_LOG` when set (to read what a run found, page by page).
    static func writeLog(_ lines: [String]) {
        guard let path = ProcessInfo.processInfo.environment["CAIRN_AUDIT_LOG"], !path.isEmpty, !lines.isEmpty else { return }
        let text = Data((lines.joined(separator: "\n") + "\n").utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(text)
            handle.closeFile()
        } else {
            FileManager.default.createFile(atPath: path, contents: text)
        }
    }
}
