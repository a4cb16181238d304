import CairnApp
import CairnCore
import Foundation
import Imaging
import PhotoMetadata
import Regimen
import Skin
import Storage
import Testing

@testable import WebApp

private let sharedFaces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces")

/// What a paired phone does over TLS on 127.0.0.2 (curl, trusting only the session's key): the same services and
/// photo pipeline as the computer, and nothing beyond its own routes.
@Suite(.serialized) struct PhoneJournalTests {
    /// A plain vault with a Skin area of two photos and a daily dose, a phone session open on it and one phone paired
    /// and allowed on the computer's page.
    final class PairedPhone {
        let site: PlainSite
        let sessions: PhoneSessions
        let web: WebApplication
        let status: PhoneSessions.Status
        let cookie: String
        let csrf: String
        let scratch: URL

        init() throws {
            site = try PlainSite()
            sessions = PhoneSessions(options: PhoneOptions(address: "127.0.0.2", port: 0), gate: site.gate, clock: site.clock)
            web = buildApplication(configuration: try Fixture.configuration(), gate: site.gate, phone: sessions)
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-phone-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            status = try sessions.open()
            (cookie, csrf) = try Self.pair(sessions, status, web: web)
        }

        /// Pairs one phone (curl) as a person would: the secret from the QR code's fragment, then Allow on the
        /// computer's page; its session cookie and CSRF token.
        static func pair(_ sessions: PhoneSessions, _ status: PhoneSessions.Status, web: WebApplication) throws -> (String, String) {
            let secret = try #require(status.pairingURL?.components(separatedBy: "#").last)
            let paired = try phoneRequest(status, "/pair", method: "POST", form: "secret=\(secret)")
            let pairing = try #require(cookieValue(paired, PhoneApplication.pairingCookie))
            _ = try phoneRequest(status, "/pair/status", cookie: "\(PhoneApplication.pairingCookie)=\(pairing)")
            let join = try #require(sessions.status?.waiting.first)
            _ = web.handle(Fixture.post("/phone/joins/\(join.id)/allow"))
            let allowed = try phoneRequest(status, "/pair/status", cookie: "\(PhoneApplication.pairingCookie)=\(pairing)")
            let cookie = "\(PhoneApplication.sessionCookie)=\(try #require(cookieValue(allowed, PhoneApplication.sessionCookie)))"
            return (cookie, try #require(sessions.status?.phones.last?.csrfToken))
        }

        deinit {
            sessions.end()
            try? FileManager.default.removeItem(at: scratch)
        }

        func get(_ path: String) throws -> PhoneReply { try phoneRequest(status, path, cookie: cookie) }
        func post(_ path: String, _ form: [String: String] = [:]) throws -> PhoneReply {
            let fields = (form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" } + ["csrf=\(csrf)"])
            return try phoneRequest(status, path, method: "POST", form: fields.joined(separator: "&"), cookie: cookie)
        }
        /// A multipart form with the file `data` in `field`, as the page's file input sends it.
        func upload(_ path: String, _ data: Data, field: String = "photo", extra: [(String, String)] = []) throws -> PhoneReply {
            let file = scratch.appendingPathComponent("\(UUID().uuidString).jpg")
            try data.write(to: file)
            return try phoneRequest(
                status, path, method: "POST", cookie: cookie,
                multipart: [(field, "@\(file.path);type=image/jpeg"), ("csrf", csrf)] + extra.map { ($0.0, $0.1) })
        }
        func location(_ reply: PhoneReply) -> String? {
            reply.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
                .map { String($0.dropFirst(9)).trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func todaysDoseTickedOnThePhoneIsLoggedOnceWhateverDoorTicksItAgain() throws {
        let phone = try PairedPhone()
        let regimen = phone.site.application.regimen
        let product = try regimen.addProduct(ProductInput(name: "Magnesium", form: "capsule"))
        try regimen.addSchedule(
            try SchedulePlan(productID: product.product.id, times: [TimeSlot(parsing: "00:00")!], recurrence: .daily, startDay: regimen.today()))
        let dose = try #require(try regimen.todayView().doses.first)

        let today = try phone.get("/today")
        #expect(today.status == 200 && today.body.contains("Magnesium"))
        #expect(today.body.contains("action=\"/regimen/doses/\(dose.doseID)/taken\""))
        #expect(!today.body.contains("href=\"/regimen/ledger\""), "nothing of the computer's pages")

        // Without the phone's CSRF token, nothing is logged.
        #expect(try phoneRequest(phone.status, "/regimen/doses/\(dose.doseID)/taken", method: "POST", form: "", cookie: phone.cookie).status == 403)
        let taken = try phone.post("/regimen/doses/\(dose.doseID)/taken")
        #expect(taken.status == 303 && phone.location(taken)?.hasPrefix("/today?logged=1&records=") == true)
        // The computer ticks the same dose: already logged, one record.
        #expect(phone.web.handle(Fixture.post("/regimen/doses/\(dose.doseID)/taken")).header("Location")?.contains("logged=already") == true)
        let again = try phone.post("/regimen/doses/\(dose.doseID)/skipped")
        #expect(phone.location(again)?.hasPrefix("/today?logged=already&records=") == true)
        #expect(try regimen.ledger(LedgerQuery(limit: 10)).entries.count == 1)
        let alreadyPage = try phone.get(try #require(phone.location(again)))
        #expect(alreadyPage.body.contains("Already logged: Magnesium (00:00), taken at "), "\(alreadyPage.body.prefix(3000))")

        // A "taken at" the parser refuses is shown beside its field; nothing is saved.
        let later = try #require(try regimen.todayView().doses.first { $0.state == .notLogged } ?? Optional(dose))
        let refused = try phone.post("/regimen/doses/\(later.doseID)/taken", ["at": "25:99"])
        #expect(refused.status == 400 && refused.body.contains("Nothing was saved."))
        #expect(try regimen.ledger(LedgerQuery(limit: 10)).entries.count == 1)
    }

    @Test func aSkinPhotoFromThePhoneGoesThroughThePipelineAndShowsOnlyItsOwnFigure() throws {
        let phone = try PairedPhone()
        let skin = phone.site.application.skin
        let areaID = phone.site.areaID

        let areas = try phone.get("/skin")
        #expect(areas.status == 200 && areas.body.contains(phone.site.areaName))
        let capture = try phone.get("/skin/\(areaID)")
        #expect(capture.status == 200 && capture.body.contains("id=\"ghost\" src=\"/skin/\(areaID)/ghost.jpg\""))
        #expect(capture.body.contains("/assets/skin.js") && capture.body.contains("/assets/phone-capture.js"))
        #expect(capture.body.contains("capture=\"environment\"") && capture.body.contains("may keep its own copy"))
        let ghost = try phone.get("/skin/\(areaID)/ghost.jpg")
        #expect(ghost.status == 200 && ghost.headers.contains("Content-Type: image/jpeg"))
        #expect(try phone.get("/assets/skin.js").status == 200)

        // A camera photo with its metadata: stored through the verified pipeline, nothing beyond the allow-list.
        let photo = try SkinDemo.jpeg(index: 1, count: 2, seed: 4)
        let sent = try phone.upload("/skin/\(areaID)/photos", photo)
        #expect(sent.status == 303)
        let result = try #require(phone.location(sent))
        let items = try skin.timeline(of: AreaID(areaID)).items
        #expect(items.count == 3)
        let newest = try #require(items.first { !phone.site.entryIDs.contains($0.entry.id.rawValue) })
        #expect(result == "/skin/\(areaID)/entries/\(newest.entry.id.rawValue)")
        let stored = try skin.photoData(of: newest.entry.id, in: AreaID(areaID), thumbnail: false)
        #expect(throws: Never.self) { try MetadataInspector.verifyClean(stored, allowList: PhotoIntake.allowList) }

        let page = try phone.get(result)
        #expect(page.status == 200 && page.body.contains("Photo added"))
        #expect(page.body.contains("id=\"similarity\"") && page.body.contains(Disclaimer.similarity.text) || page.body.contains("Not comparable"))
        #expect(!page.body.contains("photo.jpg"), "no photo of the area's history on the phone")
        // An older photo of the area is not the phone's to open.
        #expect(try phone.get("/skin/\(areaID)/entries/\(phone.site.entryIDs[0])").status == 404)
        let noted = try phone.post(result + "/note", ["note": "kitchen window"])
        #expect(noted.status == 303)
        #expect(try skin.entry(newest.entry.id, in: AreaID(areaID)).note == "kitchen window")
        // The computer's pages are not there.
        #expect(try phone.get("/skin/areas/\(areaID)").status == 404)

        // A second phone with the next code, which the computer refuses: nothing of the vault, ever.
        let next = try #require(phone.sessions.status)
        let secret = try #require(next.pairingURL?.components(separatedBy: "#").last)
        let other = try phoneRequest(next, "/pair", method: "POST", form: "secret=\(secret)", userAgent: "Mozilla/5.0 (iPhone) Safari/605.1")
        let pairing = try #require(cookieValue(other, PhoneApplication.pairingCookie))
        let join = try #require(phone.sessions.status?.waiting.first)
        #expect(phone.web.handle(Fixture.post("/phone/joins/\(join.id)/refuse")).status == 303)
        #expect(try phoneRequest(next, "/pair/status", cookie: "\(PhoneApplication.pairingCookie)=\(pairing)").status == 403)
        for path in ["/skin", "/today", "/skin/\(areaID)/ghost.jpg"] {
            let refused = try phoneRequest(next, path, cookie: "\(PhoneApplication.sessionCookie)=\(pairing)")
            #expect(refused.status != 200 && !refused.body.contains(phone.site.areaName), "\(path)")
        }
    }

    @Test func aSmilePhotoAndALabelPhotoFromThePhone() throws {
        let phone = try PairedPhone()
        let face = try Data(contentsOf: sharedFaces.appendingPathComponent("fr_obama.jpg"))
        let capture = try phone.get("/smile")
        #expect(capture.status == 200 && capture.body.contains("id=\"smile-capture\"") && capture.body.contains("id=\"phone-session\""))
        #expect(!capture.body.contains("aria-label=\"Main\""), "the phone's frame, not the computer's navigation")

        let held = try phone.upload("/smile/upload", face)
        #expect(held.status == 303)
        let crop = try #require(phone.location(held))
        #expect(crop.hasPrefix("/smile/crop/"))
        let page = try phone.get(crop)
        #expect(page.status == 200 && page.body.contains("id=\"smile-save\""))
        func value(_ id: String) throws -> String {
            let range = try #require(page.body.range(of: "id=\"\(id)\""))
            let after = page.body[range.upperBound...]
            let start = try #require(after.range(of: "value=\""))
            return String(after[start.upperBound...].prefix { $0 != "\"" })
        }
        let saved = try phone.post(crop, ["x": try value("smile-x"), "y": try value("smile-y"), "side": try value("smile-side")])
        #expect(saved.status == 303 && phone.location(saved)?.hasPrefix("/smile?added=") == true)
        let entries = try phone.site.application.smile.entries()
        #expect(entries.count == 1)
        let kept = try phone.site.application.smile.cropJPEG(entries[0])
        #expect(throws: Never.self) { try MetadataInspector.verifyClean(kept, allowList: PhotoIntake.allowList) }
        #expect(try phone.get("/smile/export/\(entries[0].shortID)").status == 404, "exports stay on the computer")

        // A label photo waits for the computer's review, in memory only.
        let label = try phone.upload("/label", face)
        #expect(label.status == 303 && phone.location(label) == "/label?sent=1")
        let waiting = try #require(phone.sessions.labelInbox.waiting.first)
        #expect(phone.web.handle(Fixture.get("/phone")).bodyText.contains("Label photos from your phone"))
        let review = phone.web.handle(Fixture.post("/phone/labels/\(waiting.id)/review"))
        #expect([200, 400, 503].contains(review.status), "the scan's own page answers")
        #expect(phone.sessions.labelInbox.waiting.isEmpty)
        #expect(phone.web.handle(Fixture.post("/phone/labels/\(waiting.id)/review")).status == 404, "reviewed once")
    }

    @Test func usingThePhoneKeepsALockedVaultFromIdlingAndLockingEndsItsSession() throws {
        let site = try LockedSite()
        #expect(site.unlock().status == 303)
        site.gate.setIdleMinutes(5)
        let sessions = PhoneSessions(options: PhoneOptions(address: "127.0.0.2", port: 0, minutes: 60), gate: site.gate, clock: site.clock)
        let web = buildApplication(configuration: try Fixture.configuration(), gate: site.gate, phone: sessions)
        defer { sessions.end() }
        let status = try sessions.open()
        let (cookie, _) = try PairedPhone.pair(sessions, status, web: web)
        let idle = TimeInterval(site.gate.idleSeconds)
        // Capturing on the phone is using Cairn: each phone page keeps the vault open past the idle time.
        for _ in 0..<3 {
            site.clock.advance(idle - 60)
            site.gate.lockIfIdle()  // what the idle timer does
            #expect(try phoneRequest(status, "/skin", cookie: cookie).status == 200)
        }
        #expect(!site.gate.isLocked)
        // The phone's "is my session still there" poll is not use: idle past the limit, the vault locks, the session
        // ends and nothing listens any more.
        site.clock.advance(idle - 60)
        _ = try phoneRequest(status, "/session", cookie: cookie)
        site.clock.advance(120)
        site.gate.lockIfIdle()
        #expect(site.gate.isLocked && !sessions.isOpen)
        #expect(try phoneRequest(status, "/skin", cookie: cookie).exit == 7)
    }
}
