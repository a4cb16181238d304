/// The three journals the home page links to, with the words of their empty states.
enum Journal: String, CaseIterable {
    case skin, smile, regimen

    var section: Layout.Section {
        switch self {
        case .skin: return .skin
        case .smile: return .smile
        case .regimen: return .regimen
        }
    }

    var title: String {
        switch self {
        case .skin: return "Skin"
        case .smile: return "Smile"
        case .regimen: return "Regimen"
        }
    }

    /// What the journal is for, in one or two sentences.
    var purpose: String {
        switch self {
        case .skin:
            return "Keep a photo record of a patch of skin you want to keep an eye on, and compare each new photo with the earlier ones."
        case .smile:
            return "Take a photo of your smile from time to time and see the photos side by side, from the first to the latest."
        case .regimen:
            return "Write down what you take and when, tick off each dose as you go, and look back at what you logged."
        }
    }

    /// The one next step offered by the empty state (opening the journal: its pages are not built yet, so the
    /// label promises nothing more).
    var nextStep: String {
        switch self {
        case .skin: return "Open Skin"
        case .smile: return "Open Smile"
        case .regimen: return "Open Regimen"
        }
    }

    /// What the journal page will hold once it lands (shown on its placeholder page).
    var comingSoon: String {
        switch self {
        case .skin: return "Areas you photograph, each with its photos in order, and a side-by-side view of any two."
        case .smile: return "Your smile photos in order, lined up so they are easy to compare."
        case .regimen: return "Your products and schedules, today's doses to tick off, and the log of what you took."
        }
    }
}

enum HomePage {
    /// The home page. `summaries` holds a short count ("2 areas, 14 photos") for each journal that has
    /// something in it; a journal without one shows its empty state.
    static func render(summaries: [Journal: String] = [:]) -> String {
        let cards = Journal.allCases.map { j in
            """
            <li class="card journal-card journal-\(j.rawValue)">
            <h2 id="journal-\(j.rawValue)">\(HTML.escape(j.title))</h2>
            \(summaries[j].map { "<p class=\"journal-summary\">\(HTML.escape($0))</p>" } ?? "<p class=\"empty-note\">Nothing here yet.</p>")
            <p>\(HTML.escape(j.purpose))</p>
            <p class="card-action"><a class="button" href="/\(j.rawValue)" aria-describedby="journal-\(j.rawValue)">\(HTML.escape(j.nextStep))</a></p>
            </li>
            """
        }.joined(separator: "\n")
        let body = """
        <div class="page-intro">
        <h1>Your journals</h1>
        <p class="lead">Three journals, one place. Leave a marker today and come back to see where things stand.</p>
        </div>
        <ul class="journal-grid" aria-label="Journals">
        \(cards)
        </ul>
        """
        return Layout.page(title: "Your journals", section: .home, body: body)
    }

    static func journal(_ j: Journal) -> String {
        let body = """
        <div class="page-intro">
        <h1>\(HTML.escape(j.title))</h1>
        <p class="lead">\(HTML.escape(j.purpose))</p>
        </div>
        <section class="card empty-state" aria-labelledby="empty-title">
        <h2 id="empty-title">Coming in this journal</h2>
        <p>This journal is not ready yet in this version of Cairn. When it is, this page will hold:</p>
        <p>\(HTML.escape(j.comingSoon))</p>
        <p class="card-action"><a class="button button-quiet" href="/">Back to your journals</a></p>
        </section>
        """
        return Layout.page(title: j.title, section: j.section, body: body)
    }
}

extension HomePage {
    /// "1 photo", "3 photos".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
