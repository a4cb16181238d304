import CairnCore
import Foundation
import Outcomes
import Regimen

enum ProductWordingCheck {
    static func clean(_ text: String) -> Bool { ProductWording.bannedWords(in: text).isEmpty }
}

func day(_ text: String) -> LocalDay { LocalDay(parsing: text)! }

func entry(_ metric: String, _ dayText: String, _ value: Double, at seconds: Double, superseded: Bool = false) -> OutcomeEntry {
    OutcomeEntry(
        id: .random(), metricID: metric, day: day(dayText), value: value, note: "", origin: .manual,
        recordedAt: Date(timeIntervalSince1970: seconds), supersedes: nil,
        supersededBy: superseded ? OutcomeEntryID("later") : nil)
}
