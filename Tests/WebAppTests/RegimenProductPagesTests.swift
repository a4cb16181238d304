import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

@Test func theProductListStartsEmptyAndLinksToTheForm() throws {
    let site = try RegimenSite()
    let list = site.get("/regimen/products")
    #expect(list.status == 200 && list.bodyText.contains("id=\"regimen-products-empty\""))
    let form = site.get("/regimen/products/new").bodyText
    #expect(form.contains("name=\"csrf\" value=\"\(Fixture.csrf)\""))
    #expect(form.contains("<option value=\"softgel\">softgel</option>"))
    #expect(form.contains("<textarea id=\"product-ingredients\" name=\"ingredients\""))
    #expect(ProductWording.bannedWords(in: form).isEmpty)
}

@Test func addingAProductWithoutTheTokenIsRefused() throws {
    let site = try RegimenSite()
    let answer = site.post("/regimen/products/new", form: ["name": "D3", "form": "capsule", "serving": "1"], csrf: nil)
    #expect(answer.status == 403)
    #expect(try site.regimen.products().isEmpty)
}

@Test func aProductFromTheFormIsSavedWithItsLabelRows() throws {
    let site = try RegimenSite()
    var form = [
        "name": "Daily D3", "brand": "Acme", "form": "softgel", "serving": "2",
        "ingredients": "Vitamin D3 = 25 mcg\n\nMystery root = 10 mg\n",
    ]
    // A row the catalogue does not know is flagged as a scanned one is: shown with a box to accept it, nothing saved.
    let gated = site.post("/regimen/products/new", form: form)
    #expect(gated.status == 400)
    #expect(gated.bodyText.contains("id=\"product-flagged-2\"") && gated.bodyText.contains("<strong>Unknown ingredient:</strong>"))
    #expect(gated.bodyText.contains("name=\"accept-2\" value=\"Mystery root = 10 mg\""))
    #expect(try site.regimen.products().isEmpty)
    // A tick given for another text of the row does not count.
    form["accept-2"] = "Mystery root = 12 mg"
    #expect(site.post("/regimen/products/new", form: form).status == 400)
    form["accept-2"] = "Mystery root = 10 mg"
    let answer = site.post("/regimen/products/new", form: form)
    #expect(answer.status == 303)
    let saved = try #require(try site.regimen.products().first)
    #expect(saved.product.servingSize == (try Amount(2, .count)))
    #expect(saved.product.ingredients.map(\.nameOnLabel) == ["Vitamin D3", "Mystery root"])
    #expect(answer.header("Location") == "/regimen/products/\(saved.product.id.rawValue)?added=1")
    let page = site.get("/regimen/products/\(saved.product.id.rawValue)?added=1").bodyText
    #expect(page.contains("<h1>Daily D3</h1>") && page.contains("Version 1 (current)"))
    #expect(page.contains("Mystery root — 10 mg <span class=\"regimen-flag\">"))
    #expect(site.get("/regimen/products").bodyText.contains("Daily D3"))
}

@Test func aTypedAmountAboveTheUpperLimitIsFlaggedBeforeSaving() throws {
    let site = try RegimenSite()
    let gated = site.post(
        "/regimen/products/new",
        form: [
            "name": "D3", "form": "softgel", "serving": "1",
            "ingredients": "Vitamin D3 = 1,000,000 IU",
        ])
    #expect(gated.status == 400 && gated.bodyText.contains("<strong>Above the upper limit:</strong>"))
    #expect(try site.regimen.products().isEmpty)
}

@Test func aRefusedProductKeepsTheFormShowsWhyAndSavesNothing() throws {
    let site = try RegimenSite()
    let noForm = site.post("/regimen/products/new", form: ["name": "<b>D3</b>", "form": "", "serving": "1"])
    #expect(noForm.status == 400)
    #expect(noForm.bodyText.contains("Choose the product&#39;s form.") || noForm.bodyText.contains("Choose the product's form."))
    #expect(noForm.bodyText.contains("value=\"&lt;b&gt;D3&lt;/b&gt;\""))
    let badAmount = site.post(
        "/regimen/products/new",
        form: [
            "name": "D3", "form": "capsule", "serving": "1",
            "ingredients": "Vitamin D3 = lots",
        ])
    #expect(badAmount.status == 400 && badAmount.bodyText.contains("<p class=\"field-error\" id=\"product-ingredients-error\">Row 1: "))
    let noName = site.post("/regimen/products/new", form: ["name": " ", "form": "capsule", "serving": "1"])
    #expect(noName.status == 400)
    #expect(try site.regimen.products().isEmpty)
}

@Test func aProductNameOver120CharactersOrWithAFormatCharacterIsShownBesideItsField() throws {
    let site = try RegimenSite()
    let form = site.get("/regimen/products/new").bodyText
    #expect(form.contains(#"id="product-name" name="name" required maxlength="120""#))
    #expect(form.contains(#"id="product-brand" name="brand" maxlength="120""#))
    let page = site.post(
        "/regimen/products/new",
        form: [
            "name": String(repeating: "p", count: 121), "brand": "Acme\u{202E}",
            "form": "capsule", "serving": "1",
        ])
    #expect(page.status == 400)
    #expect(
        page.bodyText.contains(
            "id=\"product-name-error\">The product name is longer than 120 characters. Shorten it and try again. Nothing was saved.</p>"))
    #expect(page.bodyText.contains("id=\"product-brand-error\">The brand contains an invisible formatting character"))
    #expect(try site.regimen.products().isEmpty)
}

@Test func anEmptyProductFormShowsEveryErrorBesideItsFieldAndFocusesTheFirst() throws {
    let site = try RegimenSite()
    let page = site.post("/regimen/products/new", form: ["name": "", "form": "", "serving": "", "ingredients": "D3 = 5 zorks\nZinc = lots"]).bodyText
    for (id, message) in [
        ("product-name", "A product needs a name."), ("product-form", "Choose the product&#39;s form."),
        ("product-serving", "Write one serving as a number of units, such as 2, or an amount such as 5 g."),
    ] {
        #expect(page.contains("id=\"\(id)-error\">\(message)</p>"), "\(id)")
        #expect(page.contains("id=\"\(id)\""))
    }
    #expect(page.contains("id=\"product-ingredients-error\">Row 1: The unit is not one Cairn knows."))
    #expect(page.contains("<br>Row 2: The amount does not start with a number Cairn can read."))
    #expect(page.contains("aria-describedby=\"product-name-error\" aria-invalid=\"true\" autofocus"), "the first refused field takes the focus")
    #expect(page.components(separatedBy: "autofocus").count == 2, "only one field is focused")
    #expect(page.contains("aria-describedby=\"product-serving-help product-serving-error\" aria-invalid=\"true\">"))
    #expect(page.contains("role=\"alert\" id=\"form-problems\">Nothing was saved. 4 fields need a change: <a href=\"#product-name\">Name</a>"))
    #expect(try site.regimen.products().isEmpty)
}

/// "Daily D3" added through the form with `ingredients`, and its id.
private func addDailyD3(_ site: RegimenSite, _ ingredients: String) throws -> (StoredProduct, String) {
    _ = site.post("/regimen/products/new", form: ["name": "Daily D3", "form": "softgel", "serving": "1", "ingredients": ingredients])
    let saved = try #require(try site.regimen.products().first)
    return (saved, saved.product.id.rawValue)
}

@Test func savingAProductWithNoChangeSavesNoNewVersion() throws {
    let site = try RegimenSite()
    let (saved, id) = try addDailyD3(site, "Vitamin D3 = 25 mcg, 125% DV\nZinc (as zinc picolinate) = 10 mg")
    let form = LabelScanPagesTests.formFields(site.get("/regimen/products/\(id)/edit").bodyText)
    let same = site.post("/regimen/products/\(id)/edit", form: form)
    #expect(same.status == 303 && same.header("Location") == "/regimen/products/\(id)?unchanged=1")
    #expect(try site.regimen.productHistory(saved.product.id).count == 1)
    #expect(site.get("/regimen/products/\(id)?unchanged=1").bodyText.contains("Nothing changed, so no new version was saved."))
}

@Test func aProductPageShowsEveryVersionNewestFirst() throws {
    let site = try RegimenSite()
    let first = try site.addProduct("Vitamin D3")
    _ = try site.regimen.editProduct(
        first.product.id,
        to: try Product(
            id: first.product.id, name: "Vitamin D3 forte", form: .capsule,
            servingSize: try Amount(1, .count), ingredients: []))
    let page = site.get("/regimen/products/\(first.product.id.rawValue)").bodyText
    let two = try #require(page.range(of: "Version 2 (current)"))
    let one = try #require(page.range(of: "Version 1</h3>"))
    #expect(two.lowerBound < one.lowerBound)
    #expect(site.get("/regimen/products/unknown").status == 404)
    #expect(site.post("/regimen/products").status == 405)
}

@Test func editingAProductFromItsPageSavesANewVersionAndKeepsTheOldOne() throws {
    let site = try RegimenSite()
    let (saved, id) = try addDailyD3(site, "Vitamin D3 = 25 mcg")
    #expect(site.get("/regimen/products/\(id)").bodyText.contains("href=\"/regimen/products/\(id)/edit\""))

    let form = site.get("/regimen/products/\(id)/edit").bodyText
    #expect(form.contains("action=\"/regimen/products/\(id)/edit\""))
    #expect(form.contains("value=\"Daily D3\""))
    #expect(form.contains(">Vitamin D3 = 25 mcg</textarea>"), "the form starts from the current label rows")

    #expect(
        site.post(
            "/regimen/products/\(id)/edit",
            form: [
                "name": "Daily D3", "form": "softgel", "serving": "1",
                "ingredients": "Vitamin D3 = 50 mcg",
            ], csrf: nil
        ).status == 403)
    let edited = site.post(
        "/regimen/products/\(id)/edit",
        form: [
            "name": "Daily D3", "form": "softgel", "serving": "1",
            "ingredients": "Vitamin D3 = 50 mcg",
        ])
    #expect(edited.status == 303)
    let history = try site.regimen.productHistory(saved.product.id)
    #expect(history.count == 2)
    let page = site.get("/regimen/products/\(id)").bodyText
    #expect(page.contains("Version 2 (current)") && page.contains("Version 1"))

    let refused = site.post(
        "/regimen/products/\(id)/edit",
        form: [
            "name": "Daily D3", "form": "softgel", "serving": "1",
            "ingredients": "Vitamin D3 = 5 kg",
        ])
    #expect(refused.status == 400 && refused.bodyText.contains("Nothing was saved."))
    #expect(try site.regimen.productHistory(saved.product.id).count == 2)
    #expect(site.get("/regimen/products/not-a-product/edit").status == 404)
}

@Test func theCountOnHandIsSetOnTheProductPageAndShowsWhenItRunsOut() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    try site.addDailySchedule(for: product, times: ["00:00", "12:00"])
    let id = product.product.id.rawValue
    let page = site.get("/regimen/products/\(id)").bodyText
    #expect(page.contains("id=\"supply-count\"") && page.contains("Count now, in capsules"))
    #expect(site.post("/regimen/products/\(id)/supply", form: ["count": "30"], csrf: nil).status == 403)
    let refused = site.post("/regimen/products/\(id)/supply", form: ["count": "thirty"])
    #expect(refused.status == 400 && refused.bodyText.contains("id=\"supply-count-error\"") && refused.bodyText.contains("value=\"thirty\""))
    #expect(try site.regimen.supply(product.product.id) == nil)
    #expect(site.post("/regimen/products/\(id)/supply", form: ["count": "30"]).status == 303)
    let runsOut = site.regimen.today().adding(days: 15)
    let saved = site.get("/regimen/products/\(id)?supply=1").bodyText
    #expect(saved.contains("30 capsules on hand; at about 2 a day, they last until around \(DateText.day(runsOut))."))
    #expect(site.get("/regimen/products").bodyText.contains("30 capsules on hand"))
}

@Test func aProductRunningLowIsNamedOnTodayAndHomeInsideTheRefillWindow() throws {
    let site = try RegimenSite()
    let product = try site.addProduct("Fish oil")
    try site.addDailySchedule(for: product, times: ["00:00", "12:00"])
    try site.regimen.setSupply(product.product.id, count: 40)
    #expect(!site.get("/regimen").bodyText.contains("id=\"regimen-refill\""), "20 days left is outside the 7-day window")
    try site.regimen.setSupply(product.product.id, count: 10)
    let today = site.get("/regimen").bodyText
    #expect(today.contains("id=\"regimen-refill\"") && today.contains("<strong>Fish oil:</strong> 10 capsules on hand"))
    #expect(today.contains("href=\"/regimen/products/\(product.product.id.rawValue)#supply\""))
    #expect(site.get("/").bodyText.contains("id=\"regimen-refill\""))
    try site.cairn.reminders.setPreferences(try ReminderPreferences(refillDays: 0))
    #expect(!site.get("/regimen").bodyText.contains("id=\"regimen-refill\""), "no warning while the person turned it off")
}

@Test func aNewProductOffersItsNextStepsUntilTheyAreDone() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    let id = product.product.id.rawValue
    let fresh = site.get("/regimen/products/\(id)?added=1").bodyText
    #expect(fresh.contains("id=\"next-schedule\"") && fresh.contains("id=\"next-supply\""))
    try site.addDailySchedule(for: product)
    try site.regimen.setSupply(product.product.id, count: 10)
    #expect(!site.get("/regimen/products/\(id)?added=1").bodyText.contains("id=\"next-steps\""))
}

@Test func aProductIsArchivedOnceItsSchedulesAreStoppedAndCanBeRestored() throws {
    let site = try RegimenSite()
    let product = try site.addProduct("Iron")
    let schedule = try site.addDailySchedule(for: product)
    let id = product.product.id.rawValue
    #expect(site.post("/regimen/products/\(id)/archive", csrf: nil).status == 403)
    let refused = site.post("/regimen/products/\(id)/archive")
    #expect(refused.status == 400 && refused.bodyText.contains("id=\"product-archive-error\""), "a scheduled product is not archived")
    try site.regimen.stopSchedule(schedule.scheduleID, from: site.regimen.today().adding(days: 1))
    #expect(site.post("/regimen/products/\(id)/archive").status == 303)
    let list = site.get("/regimen/products").bodyText
    #expect(list.contains("id=\"regimen-archived\"") && !list.contains("<h2><a href=\"/regimen/products/\(id)\">Iron</a></h2>"))
    #expect(!site.get("/regimen/schedules").bodyText.contains("<option value=\"\(id)\""), "an archived product gets no new schedule")
    #expect(site.get("/regimen/products/\(id)?archived=1").bodyText.contains("id=\"product-restore\""))
    #expect(site.post("/regimen/products/\(id)/restore").status == 303)
    #expect(site.get("/regimen/products").bodyText.contains("<h2><a href=\"/regimen/products/\(id)\">Iron</a></h2>"))
}
