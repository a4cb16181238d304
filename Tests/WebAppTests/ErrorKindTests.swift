import CairnApp
import CairnCore
import Foundation
import Storage
import Testing

@testable import WebApp

/// Issue 37: every refusal has a kind, mapped once to an HTTP status (`WebError(answering:)`); a page catches only
/// the refusals it shows beside its form.
struct ErrorKindTests {
    struct Refusal: CairnError {
        let errorKind: ErrorKind
        var userMessage: String { "A sentence of the service's own." }
    }

    @Test func eachKindIsAnsweredWithItsOneStatusAndTheServicesOwnSentence() {
        let statuses: [ErrorKind: Int] = [.notFound: 404, .refusedInput: 400, .conflict: 409, .unavailable: 503, .failure: 500]
        for kind in ErrorKind.allCases {
            let answer = WebError(answering: Refusal(errorKind: kind))
            #expect(answer.status == statuses[kind], "\(kind)")
            #expect(answer.userMessage == "A sentence of the service's own.")
        }
        #expect(WebError(answering: CocoaError(.fileNoSuchFile)).status == 500, "an error that is not Cairn's")
    }

    @Test func theAdaptersDeclareWhatKindOfRefusalTheirErrorsAre() {
        #expect(VaultError.servedElsewhere(pid: 1).errorKind == .conflict)
        #expect(VaultError.databaseMissing(empty: true, holds: ["photo files"]).errorKind == .unavailable)
        #expect(PhotoStoreError.notFound.errorKind == .notFound)
        #expect(PhotoStoreError.fileDamaged("x").errorKind == .failure)
        #expect(BackupRequestError.targetExists.errorKind == .conflict)
        #expect(LockService.Problem.locked.errorKind == .unavailable)
        #expect(SkinJournalError.areaNotFound.errorKind == .notFound)
        #expect(TextInputError.tooLong(field: "area name", maximum: 120).errorKind == .refusedInput)
    }
}

@Suite(.serialized) struct AreaRenameRefusalTests {
    @Test func renamingAnAreaToAnEmptyNameAnswersTheFormWithItsErrorNot500() throws {
        let v = try SkinWebVault()
        let arm = try v.app.skin.addArea(name: "Arm")
        let rename = v.web.handle(Fixture.post("/skin/areas/\(arm.id.rawValue)/rename", form: ["name": "  "]))
        #expect(rename.status == 400)
        #expect(rename.bodyText.contains(#"id="rename-error">"#))
        #expect(rename.bodyText.contains(#"aria-invalid="true""#))
        #expect(try v.app.skin.area(arm.id).name == "Arm")
        // An area that does not exist is the router's 404, not the form.
        let missing = v.web.handle(Fixture.post("/skin/areas/0f0f0f0f-1111-4222-8333-444444444444/rename", form: ["name": "X"]))
        #expect(missing.status == 404)
    }
}
