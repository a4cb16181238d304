import Foundation
import Testing

@testable import WebApp

@Test func parsesPathAndDecodedQueryFromATarget() {
    let r = Request(method: .get, target: "/a%20b?x=1&y=two+words&z=%26&empty=&flag")
    #expect(r.path == "/a b")
    #expect(r.query == ["x": "1", "y": "two words", "z": "&", "empty": "", "flag": ""])
}

@Test func anEmptyTargetIsTheRootPath() {
    #expect(Request(method: .get, target: "").path == "/")
    #expect(Request(method: .get, target: "?key=1").path == "/")
}

@Test func headerNamesAreCaseInsensitive() {
    let r = Request(method: .get, path: "/", headers: ["X-CSRF-Token": "t", "HOST": "h"])
    #expect(r.header("x-csrf-token") == "t")
    #expect(r.header("Host") == "h")
    #expect(r.header("missing") == nil)
}

@Test func parsesCookiesAndKeepsTheFirstOfADuplicate() {
    let r = Request(method: .get, path: "/", headers: ["Cookie": "a=1; cairn_session=abc=; a=2; junk"])
    #expect(r.cookies == ["a": "1", "cairn_session": "abc="])
    #expect(Request(method: .get, path: "/").cookies.isEmpty)
}

@Test func decodesAFormOnlyForUrlEncodedBodies() {
    let body = Data("confirm=DELETE&csrf=a%2Bb".utf8)
    let form = Request(method: .post, path: "/", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"], body: body)
    #expect(form.form == ["confirm": "DELETE", "csrf": "a+b"])
    let json = Request(method: .post, path: "/", headers: ["Content-Type": "application/json"], body: body)
    #expect(json.form.isEmpty)
    #expect(Request(method: .post, path: "/").form.isEmpty)
}

@Test func onlyWritingMethodsAreStateChanging() {
    #expect(HTTPMethod.allCases.filter(\.isStateChanging) == [.post, .put, .patch, .delete])
}

@Test func aRedirectIsASeeOtherWithALocation() {
    let r = Response.redirect(to: "/settings")
    #expect(r.status == 303)
    #expect(r.header("location") == "/settings")
    #expect(r.body.isEmpty)
}

@Test func aFormsTextFieldsLeaveItsFilesBytesOutAndTheBytesStayReachable() {
    let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0xC3, count: 4096))
    let request = Request(
        method: .post, path: "/skin/areas/a/photos", headers: [:],
        formFields: ["photo": photo, "photo.filename": Data("camera.jpg".utf8), "csrf": Data("token".utf8)])
    // A photo is not text: `form` holds the text fields only (decoding 12 MP as UTF-8 cost as much as the upload).
    #expect(request.form == ["csrf": "token", "photo.filename": "camera.jpg"])
    #expect(request.formValue("photo") == photo)
}
