import CairnCore
import Foundation
import Testing

@Test func aNameWithAFormatCharacterIsRefusedNamingTheField() throws {
    for text in ["Left\u{202E}mra", "Left\u{200B}arm", "\u{FEFF}Arm", "Ar\u{00AD}m", "Arm\u{2066}", "👨\u{200D}👩 arm"] {
        #expect(throws: TextInputError.formatCharacter(field: "area name")) { try TextInput.name(text, field: "area name") }
    }
    let message = TextInputError.formatCharacter(field: "area name").userMessage
    #expect(message.hasPrefix("The area name contains an invisible formatting character"))
    // Letters of every script, accents and emoji without joiners are names.
    #expect(try TextInput.name("Épaule gauche — 肩 🙂", field: "area name") == "Épaule gauche — 肩 🙂")
}

@Test func aNameHoldsAtMost120Characters() throws {
    #expect(TextInput.maximumNameLength == 120)
    #expect(try TextInput.name(String(repeating: "é", count: 120), field: "product name").count == 120)
    // Surrounding white space is not counted (services trim it).
    #expect(try TextInput.name("  " + String(repeating: "a", count: 120) + " ", field: "product name").count == 123)
    #expect(throws: TextInputError.tooLong(field: "product name", maximum: 120)) {
        try TextInput.name(String(repeating: "a", count: 121), field: "product name")
    }
    #expect(
        TextInputError.tooLong(field: "metric name", maximum: 120).userMessage
            == "The metric name is longer than 120 characters. Shorten it and try again. Nothing was saved.")
    // A name stored before the rule is still read back.
    #expect(try TextInput.storedName(String(repeating: "a", count: 10_000) + "\u{202E}", field: "product name").count == 10_001)
}

@Test func aNoteKeepsFormatCharactersAndIsShownWithTheDisguisingOnesEscaped() throws {
    let note = try TextInput.note("took it \u{202E}tuo\u{202C} at\u{200B}noon", field: "note")
    #expect(note == "took it \u{202E}tuo\u{202C} at\u{200B}noon", "the note keeps its text")
    #expect(TextInput.displayed(note) == "took it <U+202E>tuo<U+202C> at<U+200B>noon")
    #expect(TextInput.displayed("\u{FEFF}bom \u{2066}x\u{2069} soft\u{00AD}hyphen") == "<U+FEFF>bom <U+2066>x<U+2069> soft<U+00AD>hyphen")
    // An emoji sequence's joiners, a Persian word's non-joiner and a flag's tag characters stay as written.
    let family = "👨\u{200D}👩\u{200D}👧 fine"
    #expect(TextInput.displayed(family) == family)
    let persian = "می\u{200C}خواهم"
    #expect(TextInput.displayed(persian) == persian)
    let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
    #expect(TextInput.displayed(scotland) == scotland)
    // A joiner that joins nothing is shown.
    #expect(TextInput.displayed("end\u{200D}") == "end<U+200D>")
    #expect(TextInput.displayed("a \u{200D} b") == "a <U+200D> b")
    #expect(TextInput.displayed("plain text") == "plain text")
}
