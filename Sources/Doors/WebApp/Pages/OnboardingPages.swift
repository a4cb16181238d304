import CairnApp
import CairnCore

/// The three-page introduction shown on the first visit until it is finished or skipped.
enum OnboardingPages {
    static let count = 3

    /// `GET /welcome/1` to `/welcome/3`; `POST /welcome/finish` (finish or skip) completes onboarding.
    static func routes(_ settings: any SettingsServicing, csrfToken: String) -> [Route] {
        (1...count).map { step in
            route(.get, "/welcome/\(step)") { _ in .html(render(step: step, csrfToken: csrfToken)) }
        } + [
            route(.post, "/welcome/finish") { r in
                try settings.completeOnboarding()
                // The last step offers the lock and the reminders: finishing there leads to that setting.
                return .redirect(to: offers.first { $0.value == r.form["next"] }?.target ?? "/")
            }
        ]
    }

    /// What the last step offers besides finishing: (form value, where it leads, the button).
    static let offers: [(value: String, target: String, label: String)] = [
        ("lock", "/settings#lock", "Finish and set a passphrase lock"),
        ("reminders", "/settings/reminders#reminder-health", "Finish and check dose reminders"),
    ]

    struct Step {
        let heading: String
        let paragraphs: [String]
    }

    static let steps: [Step] = [
        Step(
            heading: "What Cairn is",
            paragraphs: [
                "A cairn is the stack of stones hikers leave to find their way back to a spot. Cairn does the same for you: you leave a marker today and come back later to see where things stand.",
                "It holds three journals: Skin, for photos of a patch of skin over time; Smile, for photos of your smile; and Regimen, for what you take and when.",
            ]),
        Step(
            heading: "How it works",
            paragraphs: [
                "Each time, you add a photo or tick off a dose. Cairn keeps them in order and lines new photos up beside earlier ones so you can compare them.",
                "Where Cairn shows a figure, it says what the figure means and what it does not. Cairn is a journal for noticing and remembering, not a medical tool.",
            ]),
        Step(
            heading: "Private by design",
            paragraphs: [
                ProductWording.privacy,
                "There is no account and nothing to sign in to. You can delete everything at any time from Settings.",
            ]),
    ]

    static func render(step number: Int, csrfToken: String) -> String {
        let step = steps[number - 1]
        let dots = (1...count).map { i -> HTML in
            i == number
                ? "<li class=\"step-dot is-current\" aria-current=\"step\"><span class=\"visually-hidden\">Step \(i), current</span></li>"
                : "<li class=\"step-dot\"><span class=\"visually-hidden\">Step \(i)</span></li>"
        }
        let paragraphs = HTML.join(step.paragraphs.map { paragraph -> HTML in "<p>\(paragraph)</p>" }, separator: "\n")
        let back: HTML =
            number > 1
            ? "<a class=\"button button-quiet\" id=\"onboarding-back\" href=\"/welcome/\(number - 1)\">Back</a>"
            : ""
        let forward: HTML =
            number < count
            ? "<a class=\"button\" id=\"onboarding-next\" href=\"/welcome/\(number + 1)\">Next</a>"
            : """
            <form method="post" action="/welcome/finish" class="inline-form">\(Layout.csrfField(csrfToken))\
            <button type="submit" class="button" id="onboarding-finish">Finish</button></form>
            """
        let offerForms: HTML =
            number < count
            ? ""
            : """
            <div class="onboarding-offers">
            <p>Two things worth setting now, or later from Settings: a passphrase lock, so the journal and its photos are encrypted on this computer; and dose reminders, with a test that they show on this desktop.</p>
            \(HTML.join(offers.map { offer -> HTML in
                """
                <form method="post" action="/welcome/finish" class="inline-form">\(Layout.csrfField(csrfToken))\
                <input type="hidden" name="next" value="\(offer.value)">\
                <button type="submit" class="button button-quiet" id="onboarding-\(offer.value)">\(offer.label)</button></form>
                """
            }, separator: "\n"))
            </div>
            """
        let skip: HTML =
            number < count
            ? """
            <form method="post" action="/welcome/finish" class="inline-form skip-form">\(Layout.csrfField(csrfToken))\
            <button type="submit" class="button-link" id="onboarding-skip">Skip introduction</button></form>
            """ : ""
        let body: HTML = """
            <section class="card onboarding" aria-labelledby="onboarding-title">
            <p class="progress" id="onboarding-progress">\(number) of \(count)</p>
            <ol class="step-dots" aria-label="Progress">\(dots)</ol>
            <h1 id="onboarding-title">\(step.heading)</h1>
            \(paragraphs)
            \(offerForms)
            <div class="onboarding-actions">
            <div class="actions-start">\(back)</div>
            <div class="actions-end">\(skip)\(forward)</div>
            </div>
            </section>
            """
        return Layout.page(title: "\(step.heading) (\(number) of \(count))", section: .none, body: body, chrome: false)
    }
}
