import CairnApp
import CairnCLI
import CairnCore
import Foundation
import Outcomes
import Regimen
import Storage
import Testing

/// Finding 5: escape codes in a note or product name were printed raw by the CLI (clearing the screen, setting
/// the window title), and a NUL byte in a note was stored.
@Suite struct ControlCharacterTests {
    static let hostile = ["\u{1B}]0;owned\u{07}", "\u{1B}[2J", "a\u{0}b", "\u{9B}31m", "bell\u{07}", "back\u{08}space", "line\rover"]

    @Test func namesRefuseEveryControlCharacterAndNotesAllowOnlyNewlineAndTab() throws {
        for text in Self.hostile {
            #expect(throws: TextInputError.controlCharacter(field: "area name")) { try TextInput.name(text, field: "area name") }
        }
        // Notes refuse them too, a lone CR included (it can overwrite a terminal line); CR LF becomes LF.
        for text in Self.hostile {
            #expect(throws: TextInputError.controlCharacter(field: "note")) { try TextInput.note(text, field: "note") }
        }
        #expect(try TextInput.note(" first\r\nsecond\tthird\n", field: "note") == "first\nsecond\tthird")
        #expect(try TextInput.note(String(repeating: "é", count: 500), field: "note").count == 500)
        #expect(throws: TextInputError.tooLong(field: "note", maximum: 500)) { try TextInput.note(String(repeating: "é", count: 501), field: "note") }
        #expect(throws: TextInputError.self) { try TextInput.name("tab\there", field: "product name") }
        #expect(try TextInput.name("Vitamin D3 — 1000 IU (Ünïcode)", field: "product name") == "Vitamin D3 — 1000 IU (Ünïcode)")
        #expect(TextInputError.controlCharacter(field: "note").userMessage.contains("The note contains a control character"))
    }

    @Test func everyServiceThatTakesANameOrANoteRefusesControlCharacters() throws {
        let vault = try ServedVault(serve: false)
        let app = vault.app
        let area = try app.skin.addArea(name: "Left forearm")
        let photo = try Photos.jpeg()
        for bad in ["\u{1B}[2J", "a\u{0}b"] {
            #expect(throws: TextInputError.controlCharacter(field: "area name")) { try app.skin.addArea(name: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "area name")) { try app.skin.renameArea(area.id, to: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "body location")) { try app.skin.addArea(name: "Knee", bodyLocation: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "guidance")) { try app.skin.addArea(name: "Knee", guidance: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "note")) { try app.skin.log(photo: photo, in: area.id, note: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "note")) { _ = try app.smile.add(photo, note: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "product name")) {
                try Product(name: bad, form: .capsule, servingSize: Amount(1, .count), ingredients: [])
            }
            #expect(throws: TextInputError.controlCharacter(field: "brand")) {
                try Product(name: "Vitamin D3", brand: bad, form: .capsule, servingSize: Amount(1, .count), ingredients: [])
            }
            #expect(throws: TextInputError.controlCharacter(field: "ingredient name")) {
                try ProductIngredient(catalogueID: nil, nameOnLabel: bad, amount: nil)
            }
            #expect(throws: TextInputError.controlCharacter(field: "metric name")) { try MetricDefinition.custom(id: "mood_x", name: bad) }
            #expect(throws: TextInputError.controlCharacter(field: "metric unit")) {
                try MetricDefinition.custom(id: "mood_y", name: "Mood", unit: bad)
            }
            #expect(throws: TextInputError.controlCharacter(field: "note")) { try app.outcomes.add(metricID: "energy", value: 3, note: bad) }
        }
        // Newlines and tabs stay in notes; nothing with a control character was stored.
        let entry = try app.skin.log(photo: photo, in: area.id, note: "first line\n\tsecond")
        #expect(entry.note == "first line\n\tsecond")
        #expect(try app.skin.areas().map(\.area.name) == ["Left forearm"])
    }

    @Test func aNulByteIsNeverStoredWhateverPathTheTextTakes() throws {
        let vault = try ServedVault(serve: false)
        #expect(throws: DatabaseError.self) {
            try vault.app.database.write { db in try db.execute("INSERT INTO settings(key, value) VALUES ('x', ?)", "a\u{0}b") }
        }
        let stored: Int? = try vault.app.database.read { try $0.scalar("SELECT count(*) FROM settings WHERE key = 'x'") }
        #expect(stored == 0)
    }

    @Test func theCommandLineEscapesControlCharactersInWhatItPrints() throws {
        var out: [String] = []
        let console = Console(out: { out.append($0) }, err: { out.append($0) })
        console.print("note: \u{1B}]0;owned\u{07} and \u{1B}[2J\u{9B}")
        console.error("a\u{0}b")
        console.print("keeps\nnewlines\tand tabs, and CSV's\r\nline ends")
        #expect(
            out == [
                "note: \\u{1B}]0;owned\\u{7} and \\u{1B}[2J\\u{9B}", "a\\u{0}b",
                "keeps\nnewlines\tand tabs, and CSV's\r\nline ends",
            ])
        #expect(!out.joined().unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{0}" || $0 == "\u{07}" })
    }

    @Test func theCommandLineRefusesAnEscapeCodeInANameNamingTheField() throws {
        let vault = try ServedVault(serve: false)
        var err: [String] = []
        let console = Console(out: { _ in }, err: { err.append($0) })
        let code = CairnCommandLine.run(["--data-dir", vault.directory, "skin", "add-area", "x\u{1B}[2Jy"], console: console, environment: [:])
        #expect(code == 1)
        #expect(err.joined().contains("The area name contains a control character"))
        #expect(!err.joined().contains("\u{1B}"))
    }
}
