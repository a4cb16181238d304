import CairnApp
import CairnCore
import Foundation
import Imaging
import PhotoMetadata
import Smile
import Testing

@testable import WebApp

private let faces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/faces")

/// A real vault in a temp folder behind the web application.
private final class SmileSite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-web-smile-\(UUID().uuidString)")
    let cairn: CairnApplication
    let app: WebApplication

    init() throws {
        cairn = try CairnApplication.open(dataDirectory: directory.path, environment: [:])
        var services = WebServices(cairn)
        services.settings = SettingsDouble(onboarded: true)
        app = buildApplication(configuration: try Fixture.configuration(), services: services)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func upload(_ name: String, csrf: String? = Fixture.csrf) throws -> Response {
        var headers = ["Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)", "Content-Type": "application/octet-stream"]
        if let csrf { headers["X-CSRF-Token"] = csrf }
        let body = try Data(contentsOf: faces.appendingPathComponent(name))
        return app.handle(Request(method: .post, target: "/smile/upload", headers: headers, body: body))
    }

    /// The crop page address from an upload's JSON answer.
    func cropPath(_ response: Response) throws -> String {
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
        return try #require(json["next"])
    }

    var photoFiles: [String] {
        let photos = cairn.vault.photosDirectory
        return (FileManager.default.enumerator(atPath: photos.path)?.allObjects as? [String] ?? []).filter { path in
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: photos.appendingPathComponent(path).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
    }
}

@Test func theTimelineStartsEmptyWithOneNextStep() throws {
    let site = try SmileSite()
    let page = site.app.handle(Fixture.get("/smile"))
    #expect(page.status == 200)
    #expect(page.bodyText.contains("Nothing here yet"))
    #expect(page.bodyText.contains("href=\"/smile/add\" id=\"smile-add\""))
    let capture = site.app.handle(Fixture.get("/smile/add")).bodyText
    #expect(capture.contains("id=\"smile-video\"") && capture.contains("class=\"smile-guide\"") && capture.contains("type=\"file\""))
    #expect(capture.contains("<script src=\"/assets/smile.js\" defer></script>"))
}

@Test func anUploadWaitsInMemoryUntilTheCropIsSavedThenShowsOnTheTimeline() throws {
    let site = try SmileSite()
    let answer = try site.upload("fr_obama.jpg")
    #expect(answer.status == 200)
    let crop = try site.cropPath(answer)
    #expect(site.photoFiles.isEmpty, "nothing is kept until a crop is confirmed")
    #expect(site.cairn.smile.pendingUploadCount == 1)

    let page = site.app.handle(Fixture.get(crop)).bodyText
    #expect(page.contains("<h1>Check the crop</h1>"))
    #expect(page.contains("src=\"data:image/jpeg;base64,"))
    #expect(page.contains("found by face landmarks"))
    let analysis = try site.cairn.smile.pendingUpload(String(crop.split(separator: "/").last!)).analysis
    let square = try #require(analysis.proposedSquare)
    #expect(page.contains("name=\"x\" id=\"smile-x\" min=\"0\" max=\"\(analysis.sourceWidth)\" value=\"\(square.x)\""))

    let saved = site.app.handle(Fixture.post(crop, form: ["x": "\(square.x)", "y": "\(square.y)", "side": "\(square.side)", "note": "<b>hi</b>"]))
    #expect(saved.status == 303)
    #expect(saved.header("Location")?.hasPrefix("/smile?added=") == true)
    #expect(site.photoFiles.count == 1)
    #expect(site.cairn.smile.pendingUploadCount == 0)
    let entry = try #require(try site.cairn.smile.entries().first)
    #expect(entry.source == .landmarks && entry.note == "<b>hi</b>")

    let timeline = site.app.handle(Fixture.get(saved.header("Location")!)).bodyText
    #expect(timeline.contains("id=\"smile-added\""))
    #expect(timeline.contains("src=\"/smile/photo/\(entry.id.rawValue)\""))
    #expect(timeline.contains("&lt;b&gt;hi&lt;/b&gt;") && !timeline.contains("<b>hi</b>"))
    let photo = site.app.handle(Fixture.get("/smile/photo/\(entry.id.rawValue)"))
    #expect(photo.header("Content-Type") == "image/jpeg")
    #expect(photo.body == (try site.cairn.smile.cropJPEG(entry)))
    #expect(site.app.handle(Fixture.get(crop)).status == 404, "the upload is forgotten once saved")
}

@Test func anUploadWithoutTheCSRFTokenOrNotAnImageIsRefusedAndNothingIsHeld() throws {
    let site = try SmileSite()
    #expect(try site.upload("fr_obama.jpg", csrf: nil).status == 403)
    let text = try site.upload("training_with_face_landmarks.xml")
    #expect(text.status == 422)
    let json = try #require(try JSONSerialization.jsonObject(with: text.body) as? [String: String])
    #expect(json["error"]?.hasSuffix("Use a JPEG, PNG, HEIC or WebP image. Nothing was stored.") == true)
    #expect(site.cairn.smile.pendingUploadCount == 0)
    #expect(site.photoFiles.isEmpty)
    let withoutSession = Request(method: .get, target: "/smile/add", headers: ["Host": Fixture.host])
    #expect(site.app.handle(withoutSession).status == 403)
}

@Test func aPhotoWithoutAFaceGetsTheManualCropPageAndBadSquaresAreExplained() throws {
    let site = try SmileSite()
    let crop = try site.cropPath(try site.upload("dogs.jpg"))
    let page = site.app.handle(Fixture.get(crop)).bodyText
    #expect(page.contains("<h1>Check the square</h1>"))
    #expect(page.contains("id=\"smile-square\""))
    #expect(page.contains("place the square yourself"))
    #expect(page.contains("No face was found, so the square comes from the colours of lips and teeth alone."), "the page says why it asks")

    let outside = site.app.handle(Fixture.post(crop, form: ["x": "850", "y": "0", "side": "300"]))
    #expect(outside.status == 400)
    #expect(outside.bodyText.contains("The square must lie inside the photo. Nothing was saved."))
    #expect(outside.bodyText.contains("value=\"850\""), "the person's numbers are kept")
    let garbage = site.app.handle(Fixture.post(crop, form: ["x": "left", "y": "0", "side": "300"]))
    #expect(garbage.status == 400)
    #expect(site.photoFiles.isEmpty)

    #expect(site.app.handle(Fixture.post(crop, form: ["x": "100", "y": "100", "side": "300"])).status == 303)
    #expect(try site.cairn.smile.entries().map(\.source) == [.manual])

    let another = try site.cropPath(try site.upload("dogs.jpg"))
    #expect(site.app.handle(Fixture.post(another + "/discard")).status == 303)
    #expect(site.cairn.smile.pendingUploadCount == 0)
    #expect(site.photoFiles.count == 1)
}

@Test func severalFacesAreOfferedOnTheCropPage() throws {
    let site = try SmileSite()
    let page = site.app.handle(Fixture.get(try site.cropPath(try site.upload("fr_two_people.jpg")))).bodyText
    #expect(page.contains("2 faces were found"))
    #expect(page.contains("Face 1 (largest)") && page.contains("Face 2"))
}

@Test func theComparePageLaysTwoEntriesSideBySideWithASlider() throws {
    let site = try SmileSite()
    #expect(site.app.handle(Fixture.get("/smile/compare")).bodyText.contains("Comparing needs at least two entries"))
    let (_, a) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let (_, b) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_biden.jpg")))
    let page = site.app.handle(Fixture.get("/smile/compare?a=\(b.id.rawValue)&b=\(a.id.rawValue)")).bodyText
    #expect(page.contains("id=\"smile-slider\""))
    let before = try #require(page.range(of: "smile-before\"><img src=\"/smile/photo/\(b.id.rawValue)\""))
    let after = try #require(page.range(of: "smile-after\" id=\"smile-after\"><img src=\"/smile/photo/\(a.id.rawValue)\""))
    #expect(before.lowerBound < after.lowerBound)
    #expect(site.app.handle(Fixture.get("/smile")).bodyText.contains("href=\"/smile/compare\""))
}

@Test func exportShowsTheExactFileAndNeedsAConfirmedPostWithTheToken() throws {
    let site = try SmileSite()
    let (_, entry) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let stored = try site.cairn.smile.cropJPEG(entry)
    let page = site.app.handle(Fixture.get("/smile/export/\(entry.id.rawValue)")).bodyText
    #expect(page.contains("<dd id=\"export-size\">\(CountText.grouped(stored.count)) bytes ("), "the size with its thousands grouped")
    #expect(page.contains("<dd id=\"export-dimensions\">768 × 768 JPEG</dd>"))
    #expect(page.contains("Contains no metadata (checked)"))
    #expect(page.contains("id=\"export-confirm\""))

    let refused = site.app.handle(Fixture.post("/smile/export/\(entry.id.rawValue)", csrf: nil))
    #expect(refused.status == 403)
    #expect(refused.header("Content-Disposition") == nil)
    let foreign = site.app.handle(Fixture.post("/smile/export/\(entry.id.rawValue)", headers: ["Origin": "http://evil.example"]))
    #expect(foreign.status == 403)

    let download = site.app.handle(Fixture.post("/smile/export/\(entry.id.rawValue)"))
    #expect(download.status == 200)
    #expect(
        download.header("Content-Disposition")
            == "attachment; filename=\"smile-\(String(entry.captureDate!.localDateTime.prefix(10)))-\(entry.shortID).jpg\"")
    #expect(download.body == stored, "exactly the stored bytes")
    let anonymous = Request(method: .get, target: "/smile/photo/\(entry.id.rawValue)", headers: ["Host": Fixture.host])
    #expect(site.app.handle(anonymous).status == 403, "crops are served only with the session cookie")
    #expect(site.app.handle(anonymous).body != stored)
}

@Test func unknownSmileAddressesAndMethodsAreRefused() throws {
    let site = try SmileSite()
    #expect(site.app.handle(Fixture.get("/smile/nowhere")).status == 404)
    #expect(site.app.handle(Fixture.get("/smile/export/ffffffff")).status == 404, "SmileError.noSuchEntry carries its 404")
    #expect(site.app.handle(Fixture.get("/smile/upload")).status == 405)
    #expect(site.app.handle(Fixture.post("/smile")).status == 405)
    #expect(site.app.handle(Fixture.get("/smile/crop/0123456789abcdef0123456789abcdef")).bodyText.contains("no longer held"))
}

@Test func smilePagesUseNoBannedWordsNoInlineCodeAndNoOtherOrigins() throws {
    let site = try SmileSite()
    let (_, a) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")), note: "morning")
    _ = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_biden.jpg")))
    let crop = try site.cropPath(try site.upload("dogs.jpg"))
    var pages = ["/smile", "/smile/add", "/smile/compare", "/smile/export/\(a.id.rawValue)", crop].map { site.app.handle(Fixture.get($0)).bodyText }
    pages.append(site.app.handle(Fixture.post(crop, form: ["x": "9999", "y": "0", "side": "300"])).bodyText)
    pages.append(String(decoding: site.app.handle(Fixture.get("/assets/smile.js")).body, as: UTF8.self))
    for html in pages {
        #expect(ProductWording.bannedWords(in: html).isEmpty)
        #expect(!html.contains("style="))
        #expect(!html.contains("<script>"))
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
        #expect(!html.contains("https://") && !html.contains("http://"))
    }
    for error in [
        SmileError.squareOutsidePhoto, .squareTooSmall(minimum: 38), .noSuchEntry, .ambiguousID,
        .uploadExpired, .outputNotClean, .uncertainProposal(MouthDoubt.allCases), .squareHoldsAnEye, .needsManualCrop(.nothingFound),
        .needsManualCrop(.eyesTooClose),
    ] {
        #expect(ProductWording.bannedWords(in: error.userMessage).isEmpty)
    }
}

/// A plain HTML form post (no script): the photo and the CSRF token as the server's form parser decodes them.
private func formUpload(_ photo: Data, csrf: String? = Fixture.csrf) -> Request {
    var fields = ["photo": photo]
    if let csrf { fields["csrf"] = Data(csrf.utf8) }
    return Request(
        method: .post, path: "/smile/upload",
        headers: [
            "Host": Fixture.host, "Cookie": "cairn_session=\(Fixture.secret)",
            "Content-Type": "multipart/form-data; boundary=x",
        ],
        formFields: fields)
}

@Test func aPlainFormUploadWithoutScriptLeadsToTheCropPage() throws {
    let site = try SmileSite()
    let capture = site.app.handle(Fixture.get("/smile/add")).bodyText
    #expect(capture.contains("action=\"/smile/upload\" enctype=\"multipart/form-data\""))
    #expect(capture.contains("name=\"csrf\""))
    let photo = try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg"))
    #expect(site.app.handle(formUpload(photo, csrf: nil)).status == 403)
    let answer = site.app.handle(formUpload(photo))
    #expect(answer.status == 303)
    let location = try #require(answer.headers.first { $0.0 == "Location" }?.1)
    #expect(location.hasPrefix("/smile/crop/"))
    #expect(site.app.handle(Fixture.get(location)).status == 200)
    #expect(site.photoFiles.isEmpty, "nothing is stored before the crop is confirmed")
}

@Test func aPlainFormUploadOfNothingOrNotAnImageShowsTheReasonAndStoresNothing() throws {
    let site = try SmileSite()
    let empty = site.app.handle(formUpload(Data()))
    #expect(empty.status == 400)
    #expect(empty.bodyText.contains("No photo arrived"))
    let text = site.app.handle(formUpload(try Data(contentsOf: faces.appendingPathComponent("training_with_face_landmarks.xml"))))
    #expect(text.status == 422)
    #expect(text.bodyText.contains("Nothing was stored.") && text.bodyText.contains("id=\"smile-file-form\""))
    #expect(site.photoFiles.isEmpty)
    #expect(try site.cairn.smile.entries().isEmpty)
}

@Test func deletingAnEntryAsksFirstAndThenRemovesItsCrop() throws {
    let site = try SmileSite()
    let (_, entry) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let path = "/smile/delete/\(entry.id.rawValue)"
    #expect(site.app.handle(Fixture.get("/smile")).bodyText.contains("href=\"\(path)\""))
    let ask = site.app.handle(Fixture.get(path))
    #expect(ask.status == 200)
    #expect(ask.bodyText.contains("cannot be undone") && ask.bodyText.contains("action=\"\(path)\""))
    #expect(try site.cairn.smile.entries().count == 1, "asking deletes nothing")
    #expect(site.app.handle(Fixture.post(path, csrf: nil)).status == 403)
    #expect(site.app.handle(Fixture.post(path)).status == 303)
    #expect(try site.cairn.smile.entries().isEmpty)
    #expect(site.photoFiles.isEmpty)
}

@Test func deletingAnEntrySaysSoOnTheTimeline() throws {
    let site = try SmileSite()
    let (_, entry) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let deleted = site.app.handle(Fixture.post("/smile/delete/\(entry.id.rawValue)"))
    #expect(deleted.header("Location") == "/smile?deleted=1")
    let timeline = site.app.handle(Fixture.get("/smile?deleted=1")).bodyText
    #expect(timeline.contains("id=\"smile-deleted\"") && timeline.contains("Deleted."))
    #expect(!site.app.handle(Fixture.get("/smile")).bodyText.contains("smile-deleted"))
}

@Test func theTimelineSaysWhetherADateIsWhenThePhotoWasTakenOrWhenItWasAdded() throws {
    let site = try SmileSite()
    let (_, dated) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let page = site.app.handle(Fixture.get("/smile")).bodyText
    if dated.captureDate != nil { #expect(page.contains("Taken \(dated.displayDate)")) } else { #expect(page.contains("(the photo had no date)")) }
    #expect(page.contains("id=\"smile-order\""), "the order is explained")
}

@Test func theCompareSliderSaysWhichCropShowsWhere() throws {
    let site = try SmileSite()
    let (_, a) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let (_, b) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_biden.jpg")))
    let page = site.app.handle(Fixture.get("/smile/compare?a=\(a.id.rawValue)&b=\(b.id.rawValue)")).bodyText
    #expect(page.contains("aria-valuetext=\"Before (\(a.displayDate)") && page.contains("on the left 50%, after (\(b.displayDate)"))
    #expect(SmilePages.sliderText(0, before: a.displayDate, after: b.displayDate) == "After only (\(b.displayDate))")
    #expect(SmilePages.sliderText(100, before: a.displayDate, after: b.displayDate) == "Before only (\(a.displayDate))")
    // Without the script the two crops stand side by side: the slider row is hidden and no figure is laid over the other.
    #expect(page.contains("<div class=\"smile-slider\" id=\"smile-slider-row\" hidden>"))
    #expect(!page.contains("is-slider"))
}

@Test func twoCropsOfOneDayAreToldApartInThePickersAndCaptions() throws {
    let site = try SmileSite()
    let (_, a) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let (_, b) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    #expect(a.displayDate == b.displayDate, "the same photo twice: the same date")
    let page = site.app.handle(Fixture.get("/smile/compare?a=\(a.id.rawValue)&b=\(b.id.rawValue)")).bodyText
    #expect(page.contains(">\(a.displayDate), 1 of 2<") && page.contains(">\(a.displayDate), 2 of 2<"))
    #expect(page.contains("<figcaption>Before · \(a.displayDate), ") && page.contains("<figcaption>After · \(b.displayDate), "))
}

@Test func aRefusedUploadShowsItsErrorBelowThePhotoFieldAndTheCameraNeedsTheScript() throws {
    let page = SmilePages.capture(csrfToken: Fixture.csrf, error: "This is not a photo.")
    let field = try #require(page.range(of: "id=\"smile-file\""))
    let error = try #require(page.range(of: "id=\"upload-error\""))
    #expect(field.lowerBound < error.lowerBound && page[field.upperBound..<error.lowerBound].count < 300, "the error follows the field")
    #expect(page.contains("aria-invalid=\"true\" aria-describedby=\"upload-error\" autofocus"))
    #expect(page.contains("id=\"smile-camera-card\" hidden"), "the camera card is shown by smile.js only")
}

@Test func twoCropsAreExportedSideBySideAfterAPreviewOfTheExactPicture() throws {
    let site = try SmileSite()
    let (_, a) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_obama.jpg")))
    let (_, b) = try site.cairn.smile.add(try Data(contentsOf: faces.appendingPathComponent("fr_biden.jpg")))
    let compare = site.app.handle(Fixture.get("/smile/compare?a=\(a.id.rawValue)&b=\(b.id.rawValue)")).bodyText
    #expect(compare.contains("href=\"/smile/side-by-side?a=\(a.id.rawValue)&amp;b=\(b.id.rawValue)\""))
    let page = site.app.handle(Fixture.get("/smile/side-by-side?a=\(a.id.rawValue)&b=\(b.id.rawValue)")).bodyText
    let width = 2 * SmileService.cropSide + SmileService.sideBySideGap
    #expect(page.contains("<dd id=\"export-dimensions\">\(width) × \(SmileService.cropSide) JPEG</dd>"))
    #expect(page.contains("src=\"/smile/side-by-side.jpg?a=\(a.id.rawValue)&amp;b=\(b.id.rawValue)\""))
    let form = ["a": a.id.rawValue, "b": b.id.rawValue]
    #expect(site.app.handle(Fixture.post("/smile/side-by-side", form: form, csrf: nil)).status == 403)
    let download = site.app.handle(Fixture.post("/smile/side-by-side", form: form))
    #expect(download.status == 200 && download.header("Content-Disposition")?.hasPrefix("attachment; filename=\"smile-side-by-side-") == true)
    #expect(throws: Never.self) { try MetadataInspector.verifyClean(download.body, allowList: PhotoIntake.allowList) }
    #expect(site.app.handle(Fixture.get("/smile/side-by-side?a=\(a.id.rawValue)")).status == 404, "both photos are named")
    #expect(site.app.handle(Fixture.get("/smile/side-by-side?a=\(a.id.rawValue)&b=nothing")).status == 404)
}
