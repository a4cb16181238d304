import CairnCore

/// Banned-word check for user-facing text in tests.
enum ProductWordingCheck {
    static func banned(in text: String) -> [String] { ProductWording.bannedWords(in: text) }
}
