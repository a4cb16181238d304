import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing
import WebApp

/// Today in a real browser: Taken moves the keyboard focus to the next dose, "Taken at" records the time
/// given, and Undo puts the dose back, with focus on it.
@Suite(.serialized) struct TodayBrowserTests {
    @Test func takenAtUndoAndFocusOnToday() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-today-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: vault) }
        let clock = FixedClock(ISO8601DateFormatter().date(from: "2026-03-10T12:33:00Z")!)
        let cairn = try CairnApplication.open(dataDirectory: vault.path, environment: [:], clock: clock)
        try cairn.settings.completeOnboarding()
        for name in ["Vitamin D3", "Magnesium"] {
            let typed = try Product(
                name: name, form: .capsule, servingSize: try Amount(1, .count),
                ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: name, amount: try Amount(25, .mg))])
            let product = try cairn.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
            try cairn.regimen.addSchedule(
                try SchedulePlan(
                    productID: product.product.id,
                    times: (name == "Magnesium" ? ["12:00", "20:00"] : ["08:00"]).compactMap(TimeSlot.init(parsing:)),
                    recurrence: .daily, startDay: LocalDay(parsing: "2026-03-01")!))
        }
        let server = try WebServer(configuration: try WebConfiguration(port: 0), services: WebServices(cairn))
        try server.start()
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let doses = try cairn.regimen.todayView().doses
        let morning = try #require(doses.first { $0.occurrence.slot.description == "08:00" }).doseID
        let noon = try #require(doses.first { $0.occurrence.slot.description == "12:00" }).doseID

        let browser = try await WebDriver.launch()
        do {
            try await browser.open(server.loginURL)
            try await browser.open("\(origin)/regimen")
            // The batch due now is 12:00; Taken there moves the focus to the next open dose (08:00, still open).
            try await browser.click("#take-\(noon)")
            #expect(try await browser.waitFor("#regimen-notice"))
            #expect(
                try await browser.evaluate("return document.activeElement.id") as? String == "take-\(morning)",
                "focus is on the next dose's Taken button, not the top of the page")

            // Taken at 08:05 for the morning dose.
            try await browser.click("#dose-\(morning) summary")
            _ = try await browser.evaluate("document.getElementById('at-\(morning)').value = '08:05'; return 0")
            try await browser.click("#dose-\(morning) details button[type=submit]")
            #expect(try await browser.waitFor("#regimen-notice"))
            let record = try #require(try cairn.regimen.ledger().entries.first { $0.occurrence?.doseID == morning })
            #expect(record.takenAt == ISO8601DateFormatter().date(from: "2026-03-10T08:05:00Z")!)
            #expect(try await browser.text("#dose-\(morning) .regimen-state") == "taken at 08:05")

            // A time later than now is refused beside its field, with nothing saved.
            try await browser.click("#dose-\(noon) form button")  // Undo the noon dose first
            #expect(try await browser.waitFor("#take-\(noon)"))
            #expect(
                try await browser.evaluate("return document.activeElement.id") as? String == "take-\(noon)",
                "after Undo the focus is on the dose that is open again")
            try await browser.click("#dose-\(noon) summary")
            _ = try await browser.evaluate("document.getElementById('at-\(noon)').value = '13:00'; return 0")
            try await browser.click("#dose-\(noon) details button[type=submit]")
            #expect(try await browser.waitFor("#at-error-\(noon)"))
            #expect(try await browser.text("#at-error-\(noon)").contains("That time is later than now."))
            #expect(try cairn.regimen.todayView().doses.first { $0.doseID == noon }?.state == .notLogged)
            let entries = try cairn.regimen.ledger().entries
            #expect(entries.filter { $0.isUndo }.count == 1 && entries.count == 3, "taken, undone, taken at 08:05")
            // The refused time answers 400, which Chromium logs; nothing else may be logged as an error.
            let errors = try await browser.logs("browser").filter { ($0["level"] as? String) == "SEVERE" }
                .compactMap { $0["message"] as? String }.filter { !$0.contains("status of 400") }
            #expect(errors.isEmpty, "no console errors: \(errors)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
