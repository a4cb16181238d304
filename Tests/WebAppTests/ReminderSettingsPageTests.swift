import CairnApp
import CairnCore
import Foundation
import Regimen
import Testing

@testable import WebApp

@Test func reminderSettingsSaveARevisionAndRefuseHalfQuietHoursBesideTheForm() throws {
    let site = try RegimenSite()
    let product = try site.addProduct()
    let schedule = try site.addDailySchedule(for: product, times: ["08:00"])
    let page = site.get("/settings/reminders")
    #expect(page.status == 200 && page.bodyText.contains("A dose is due at 08:00"))
    let saved = site.post(
        "/settings/reminders",
        form: [
            "quiet_start": "22:00", "quiet_end": "07:00", "names": "on", "repeat": "15",
            "repeat_limit": "3", "summary": "on", "refill_days": "7",
        ])
    #expect(saved.status == 303)
    let p = try site.cairn.reminders.preferences()
    #expect(p.quietHoursText == "22:00-07:00" && p.showProductNames && p.repeatMinutes == 15)
    let refused = site.post(
        "/settings/reminders",
        form: [
            "quiet_start": "22:00", "quiet_end": "", "repeat": "0", "repeat_limit": "3",
            "refill_days": "7",
        ])
    #expect(refused.status == 400 && refused.bodyText.contains("id=\"quiet-error\""), "the error sits with the quiet hours")
    #expect(refused.bodyText.contains("name=\"quiet_start\" value=\"22:00\" aria-invalid=\"true\" aria-describedby=\"quiet-error\""))
    #expect(!refused.bodyText.contains("name=\"repeat\" min=\"0\" max=\"720\" value=\"15\" aria-invalid"), "only the field at fault is marked")
    #expect(try site.cairn.reminders.preferences().quietHoursText == "22:00-07:00", "nothing saved")
    #expect(site.post("/settings/reminders/schedules/\(schedule.scheduleID.rawValue)", form: ["enabled": "off"]).status == 303)
    #expect(try site.cairn.reminders.remindersOff() == [schedule.scheduleID])
    #expect(site.get("/settings").bodyText.contains("href=\"/settings/reminders\""))
}

@Test func aSkinAreasPhotoReminderIsSetOnTheRemindersPageAndABadNumberIsRefusedBesideItsField() throws {
    let site = try RegimenSite()
    let area = try site.cairn.skin.addArea(name: "Left forearm")
    let page = site.get("/settings/reminders")
    #expect(page.bodyText.contains("Left forearm: every how many weeks"))
    #expect(page.bodyText.contains("id=\"photo-weeks-\(area.id.rawValue)\" name=\"weeks\" min=\"0\" max=\"52\" value=\"0\""), "off by default")
    #expect(site.post("/settings/reminders/areas/\(area.id.rawValue)", form: ["weeks": "4"]).status == 303)
    #expect(try site.cairn.reminders.photoReminders() == [area.id: 4])
    let refused = site.post("/settings/reminders/areas/\(area.id.rawValue)", form: ["weeks": "60"])
    #expect(refused.status == 400)
    #expect(refused.bodyText.contains("aria-describedby=\"photo-error-\(area.id.rawValue)\""))
    #expect(refused.bodyText.contains("A photo reminder comes every 1 to 52 weeks"))
    #expect(try site.cairn.reminders.photoReminders() == [area.id: 4], "nothing saved")
}

@Test func theRemindersPageAndHomeSayWhenNoNotificationServiceAnswered() throws {
    let site = try RegimenSite(reminderStatus: ReminderStatus(.off))
    try site.addDailySchedule(for: try site.addProduct())
    let page = site.get("/settings/reminders").bodyText
    #expect(page.contains(ReminderSettingsPage.offSentence) && !page.contains("id=\"reminder-test\""))
    #expect(site.get("/").bodyText.contains("id=\"home-reminders-off\""))
    let on = try RegimenSite(reminderStatus: ReminderStatus(.on(service: "notifyd 1.0")))
    try on.addDailySchedule(for: try on.addProduct())
    #expect(!on.get("/").bodyText.contains("id=\"home-reminders-off\""))
}

@Test func aTestReminderIsHandedToTheLoopAndThePageSaysWhetherItShowed() throws {
    let status = ReminderStatus(.on(service: "notifyd 1.0"))
    let site = try RegimenSite(reminderStatus: status)
    let page = site.get("/settings/reminders").bodyText
    #expect(page.contains("notification service (notifyd 1.0) answered") && page.contains("id=\"reminder-test\""))
    // The loop's side: take the request, show it, say so.
    let loop = Thread {
        for _ in 0..<100 {
            if status.takeTestRequest() {
                status.reportTest(shown: true)
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
    loop.start()
    let sent = site.post("/settings/reminders/test")
    #expect(sent.status == 303 && sent.header("Location") == "/settings/reminders?test=shown#reminder-health")
    #expect(site.get("/settings/reminders?test=shown").bodyText.contains("A test reminder was sent"))
    #expect(site.post("/settings/reminders/test", csrf: nil).status == 403)
    let none = try RegimenSite()
    #expect(none.post("/settings/reminders/test").header("Location") == "/settings/reminders?test=none#reminder-health")
}
