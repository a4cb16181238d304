import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

@Test func schedulesStartEmptyAndAskForAProductFirst() throws {
    let site = try RegimenSite()
    let page = site.get("/regimen/schedules")
    #expect(page.status == 200)
    #expect(page.bodyText.contains("id=\"regimen-schedules-empty\""))
    #expect(page.bodyText.contains("href=\"/regimen/products/new\""))
    #expect(!page.bodyText.contains("action=\"/regimen/schedules/new\""))
    #expect(ProductWording.bannedWords(in: page.bodyText).isEmpty)
}

@Test func aScheduleFromTheFormShowsOnTodayAndNeedsTheToken() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    let form = [
        "product": product.product.id.rawValue, "servings": "2", "repeats": "daily", "times": "00:00",
        "start": site.regimen.today().description,
    ]
    #expect(site.post("/regimen/schedules/new", form: form, csrf: nil).status == 403)
    #expect(try site.regimen.schedules().isEmpty)
    let saved = site.post("/regimen/schedules/new", form: form)
    #expect(saved.status == 303 && saved.header("Location") == "/regimen/schedules?saved=1")
    let schedule = try #require(try site.regimen.schedules().first)
    #expect(schedule.latest.plan.servings == 2)
    let page = site.get("/regimen/schedules?saved=1").bodyText
    #expect(page.contains("Version 1, from \(site.regimen.today()): active; daily at 00:00, 2 servings"))
    #expect(site.get("/regimen").bodyText.contains("Vitamin D3"))
}

@Test func aScheduleFormTakesATimeZoneAndRefusesAnUnknownOneBesideItsField() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    var form = [
        "product": product.product.id.rawValue, "servings": "1", "repeats": "daily", "times": "08:00",
        "start": site.regimen.today().description, "zone": "Mars/Base",
    ]
    let refused = site.post("/regimen/schedules/new", form: form)
    #expect(refused.status == 400)
    #expect(refused.bodyText.contains("id=\"schedule-zone-error\""), "the error is beside the zone field")
    #expect(refused.bodyText.contains("<details class=\"stack schedule-zone\" open>"), "the folded field opens to show its error")
    #expect(refused.bodyText.contains("value=\"Mars/Base\""), "what was typed is kept")
    #expect(try site.regimen.schedules().isEmpty)
    form["zone"] = "Asia/Tokyo"
    #expect(site.post("/regimen/schedules/new", form: form).status == 303)
    #expect(try site.regimen.schedules().first?.latest.plan.zone.identifier == "Asia/Tokyo")
    #expect(site.get("/regimen/schedules").bodyText.contains("daily at 08:00 Asia/Tokyo time, 1 serving"))
}

@Test func aRefusedScheduleShowsWhyAndSavesNothing() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    let today = site.regimen.today().description
    for form in [
        ["product": product.product.id.rawValue, "servings": "x", "repeats": "daily", "times": "08:00", "start": today],
        ["product": product.product.id.rawValue, "servings": "1", "repeats": "daily", "times": "25:99", "start": today],
        ["product": product.product.id.rawValue, "servings": "1", "repeats": "weekdays", "weekdays": "", "times": "08:00", "start": today],
        ["product": product.product.id.rawValue, "servings": "0", "repeats": "daily", "times": "08:00", "start": today],
        ["product": "", "servings": "1", "repeats": "daily", "times": "08:00", "start": today],
    ] {
        let answer = site.post("/regimen/schedules/new", form: form)
        #expect(answer.status == 400)
        #expect(answer.bodyText.contains("class=\"field-error\"") && answer.bodyText.contains("aria-invalid=\"true\" autofocus"))
    }
    #expect(try site.regimen.schedules().isEmpty)
}

@Test func aScheduleFormShowsEveryErrorBesideItsField() throws {
    let site = try RegimenSite()
    _ = try site.addProduct()
    let page = site.post(
        "/regimen/schedules/new",
        form: [
            "product": "", "servings": "x", "repeats": "every", "every": "0",
            "times": "8 o'clock", "start": "soon",
        ]
    ).bodyText
    for (id, message) in [
        ("schedule-product", "Choose a product."), ("schedule-servings", "Servings must be a number, like 1 or 0.5."),
        ("schedule-every", "Every N days takes a whole number of days, from 1 to 366."),
        ("schedule-times", "A time of day must be written as HH:MM, for example 08:00."),
        ("schedule-start", "A date must be written as YYYY-MM-DD, for example 2026-03-01."),
    ] {
        #expect(page.contains("<p class=\"field-error\" id=\"\(id)-error\">\(message)</p>"), "\(id)")
    }
    #expect(page.contains("5 fields need a change"))
    #expect(page.contains("id=\"repeats-every\" value=\"every\" checked"), "the choice is kept")
}

@Test func theScheduleFormLabelsTheFieldsOfEachKindOfRecurrenceSoTheyCanBeHidden() throws {
    let site = try RegimenSite()
    _ = try site.addProduct()
    let page = site.get("/regimen/schedules").bodyText
    for kind in Recurrence.Kind.allCases { #expect(page.contains("type=\"radio\" name=\"repeats\" id=\"repeats-\(kind.rawValue)\"")) }
    #expect(
        page.contains(
            "schedule-when schedule-when-every\"><label for=\"schedule-every\">Every how many days <span class=\"help\">(only for every few days)</span>"
        ))
    #expect(
        page.contains(
            "schedule-when schedule-when-weekdays\"><label for=\"schedule-weekdays\">Weekdays <span class=\"help\">(only for some weekdays)</span>"))
    let css = try #require(String(data: AssetStore.bundled().asset(named: "cairn.css")?.data ?? Data(), encoding: .utf8))
    #expect(css.contains(".schedule-form:has(input[name=\"repeats\"]:checked):not(:has(#repeats-every:checked)) .schedule-when-every"))
}

@Test func pauseResumeAndStopAddRevisionsThatStayInTheHistory() throws {
    let site = try RegimenSite()
    let revision = try site.addDailySchedule(for: try site.addProduct())
    let id = revision.scheduleID.rawValue
    let today = site.regimen.today()
    func day(_ n: Int) -> [String: String] { ["from": today.adding(days: n).description] }
    #expect(
        site.get("/regimen/schedules").bodyText.contains("name=\"from\" value=\"\(today.adding(days: 1))\""),
        "the form offers the first day the service accepts")
    #expect(site.post("/regimen/schedules/\(id)/pause", form: day(1), csrf: nil).status == 403)
    let sameDay = site.post("/regimen/schedules/\(id)/pause", form: day(0))
    #expect(
        sameDay.status == 400 && sameDay.bodyText.contains("<p class=\"field-error\" id=\"pause-\(id)-error\">"),
        "the refusal sits beside the day of that schedule's pause")
    #expect(site.post("/regimen/schedules/\(id)/pause", form: ["from": "soon"]).status == 400)
    #expect(site.post("/regimen/schedules/\(id)/pause", form: day(1)).status == 303)
    var page = site.get("/regimen/schedules").bodyText
    #expect(page.contains("<span class=\"regimen-state\">paused</span>"))
    #expect(page.contains("action=\"/regimen/schedules/\(id)/resume\""))
    #expect(site.post("/regimen/schedules/\(id)/resume", form: day(2)).status == 303)
    let asked = site.post("/regimen/schedules/\(id)/stop", form: day(3))
    #expect(asked.status == 200 && asked.bodyText.contains("id=\"schedule-stop-confirm\""), "stopping for good asks first")
    #expect(try site.regimen.scheduleHistory(revision.scheduleID).latest?.state == .active, "asking saves nothing")
    #expect(site.post("/regimen/schedules/\(id)/stop", form: day(3).merging(["confirm": "yes"]) { a, _ in a }).status == 303)
    page = site.get("/regimen/schedules").bodyText
    #expect(page.contains("<span class=\"regimen-state\">stopped</span>"))
    #expect(!page.contains("action=\"/regimen/schedules/\(id)/"), "a stopped schedule offers no actions")
    let history = try site.regimen.scheduleHistory(revision.scheduleID).revisions
    #expect(page.contains("Version \(history.count), from"))
    #expect(page.contains("Version 1, from"))
    let again = site.post("/regimen/schedules/\(id)/resume", form: day(4))
    #expect(again.status == 400 && again.bodyText.contains("Nothing was saved."))
    #expect(site.post("/regimen/schedules/\(id)/explode").status == 404)
}

@Test func aScheduleIsChangedFromAChosenDayAsANewVersionWithItsHistoryShown() throws {
    let site = try RegimenSite()
    let revision = try site.addDailySchedule(for: try site.addProduct())
    let id = revision.scheduleID.rawValue
    let today = site.regimen.today()
    #expect(site.get("/regimen/schedules").bodyText.contains("href=\"/regimen/schedules/\(id)/edit\""))
    let form = site.get("/regimen/schedules/\(id)/edit").bodyText
    #expect(form.contains("value=\"00:00\""), "the form starts from the plan as it stands")
    #expect(form.contains("name=\"from\" required value=\"\(today.adding(days: 1))\""))
    #expect(form.contains("Version 1, from \(today)"), "the history is beside the form")
    #expect(!form.contains("name=\"product\""), "the product of a schedule never changes")
    var change = [
        "servings": "2", "repeats": "daily", "times": "08:00, 20:00", "every": "2", "weekdays": "", "zone": "",
        "from": today.description,
    ]
    #expect(site.post("/regimen/schedules/\(id)/edit", form: change, csrf: nil).status == 403)
    let sameDay = site.post("/regimen/schedules/\(id)/edit", form: change)
    #expect(sameDay.status == 400 && sameDay.bodyText.contains("id=\"schedule-from-error\""), "a day that overlaps is refused beside its field")
    #expect(sameDay.bodyText.contains("value=\"08:00, 20:00\""), "what was typed is kept")
    change["times"] = "25:00"
    change["servings"] = "two"
    let both = site.post("/regimen/schedules/\(id)/edit", form: change).bodyText
    #expect(both.contains("id=\"schedule-times-error\"") && both.contains("id=\"schedule-servings-error\""), "every error at once")
    change["times"] = "08:00, 20:00"
    change["servings"] = "2"
    change["from"] = today.adding(days: 1).description
    #expect(site.post("/regimen/schedules/\(id)/edit", form: change).status == 303)
    let history = try site.regimen.scheduleHistory(revision.scheduleID)
    #expect(history.revisions.count == 2)
    #expect(history.latest?.plan.times.map(\.description) == ["08:00", "20:00"] && history.latest?.plan.servings == 2)
    #expect(history.latest?.effectiveFrom == today.adding(days: 1) && history.latest?.plan.startDay == today)
    #expect(site.get("/regimen/schedules").bodyText.contains("Version 2, from \(today.adding(days: 1)): active; daily at 08:00, 20:00, 2 servings"))
    #expect(site.get("/regimen/schedules/nope/edit").status == 404)
}
