import CairnApp
import CairnCore
import Foundation
import Regimen

/// The `cairn regimen` command tree.
enum RegimenCommands {
    /// `--form FORM`, for the commands that add or change a product.
    static let formOption = Option(
        "--form", "FORM", help: "capsule, softgel, tablet, chewable, lozenge, gummy, powder, liquid, drops, spray,\npacket or other.")
    /// The group registered in `CairnCommandLine.commands`.
    static var group: CommandGroup {
        CommandGroup(
            name: "regimen", abstract: "Supplements and medications: products, schedules, today's doses, the log and outcome series.",
            children: [
                .group(
                    CommandGroup(
                        name: "products", abstract: "List, add, show and edit products.",
                        children: [
                            .command(RegimenProductsListCommand.self),
                            .command(RegimenProductsAddCommand.self),
                            .command(RegimenProductsShowCommand.self),
                            .command(RegimenProductsEditCommand.self),
                            .command(RegimenProductsShelfCommand<ArchiveProduct>.self),
                            .command(RegimenProductsShelfCommand<RestoreProduct>.self),
                        ])),
                .group(
                    CommandGroup(
                        name: "schedules", abstract: "List, add and change schedules (every change is a dated revision).",
                        children: [
                            .command(RegimenSchedulesListCommand.self),
                            .command(RegimenSchedulesAddCommand.self),
                            .command(RegimenSchedulesEditCommand.self),
                            .command(RegimenScheduleStateCommand<PauseAction>.self),
                            .command(RegimenScheduleStateCommand<ResumeAction>.self),
                            .command(RegimenScheduleStateCommand<StopAction>.self),
                            .command(RegimenSchedulesHistoryCommand.self),
                        ])),
                .command(RegimenTodayCommand.self),
                .command(RegimenTakeCommand.self),
                .command(RegimenSkipCommand.self),
                .command(RegimenCorrectCommand.self),
                .command(RegimenUndoCommand.self),
                .command(RegimenLedgerCommand.self),
                .command(RegimenExportCommand.self),
                .command(RegimenImportCommand.self),
                .command(RegimenExposureCommand.self),
                .command(RegimenInsightsCommand.self),
                .command(RegimenReportCommand.self),
                .command(LabelScanCommand.self),
                .group(RegimenLabelsCommands.group),
                .group(
                    CommandGroup(
                        name: "supply", abstract: "Counts on hand and when they run out.",
                        children: [
                            .command(RegimenSupplySetCommand.self),
                            .command(RegimenSupplyListCommand.self),
                        ])),
                .group(RegimenOutcomeCommands.group),
                .group(RegimenReminderCommands.group),
            ])
    }

    /// Opens the vault with the clock the environment names: the system clock, or a fixed instant from
    /// `CAIRN_NOW` (ISO 8601, for demos and tests); the zone is `TZ` when it names an IANA zone.
    /// An ISO 8601 instant with a zone designator ("2026-03-10T08:05:00Z", "2026-03-10T09:05+01:00").
    /// A question that needed an answer with nobody at a terminal to give it (and no `--yes`): nothing was done.
    struct Unconfirmed: CairnError {
        let userMessage: String
        var errorKind: ErrorKind { .refusedInput }
        init(_ message: String) { userMessage = message }
    }

    /// An ISO 8601 instant (`TakenTime.isoInstant`).
    static func parseInstant(_ text: String) -> Date? { TakenTime.isoInstant(text) }

    /// `--at` of an extra or as-needed dose: "taken at" read by the one parser (`RegimenService.takenTime`,
    /// `TakenTime`). A scheduled dose's `--at` goes with its check-in (`checkIn(_:status:typedAt:)`).
    static func parseAt(_ text: String?, _ service: RegimenService) throws -> Date? {
        try text.map { try service.takenTime($0, forDoseOn: nil) }
    }

    /// Row numbers from `--accept 2 --accept 5` or `--accept 2,5`; a usage error for anything but numbers from 1.
    static func rowNumbers(_ values: [String], option: String) throws -> Set<Int> {
        var numbers: Set<Int> = []
        for part in values.flatMap({ $0.split(separator: ",") }) {
            guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n >= 1 else {
                throw UsageError("\(option) takes a row number (1 for the first row).")
            }
            numbers.insert(n)
        }
        return numbers
    }

    static func describe(_ servings: Decimal) -> String {
        servings == 1 ? "1 serving" : "\(servings) servings"
    }

}

/// The system time with a zone chosen from the environment.
struct ZonedSystemClock: Clock {
    let timeZone: TimeZone
    func now() -> Date { Date() }
}

// MARK: JSON shapes

struct ProductJSON: Encodable {
    struct Ingredient: Encodable {
        let nameOnLabel: String
        let catalogueID: String?
        let amount: Amount?
        let form: String?
        let inCatalogue: Bool
    }
    let id: String
    let revisionID: String
    let revision: Int
    let name: String
    let brand: String
    let form: String
    let servingSize: Amount
    let ingredients: [Ingredient]

    init(_ stored: StoredProduct) {
        id = stored.product.id.rawValue
        revisionID = stored.revisionID.rawValue
        revision = stored.revisionNumber
        name = stored.product.name
        brand = stored.product.brand
        form = stored.product.form.rawValue
        servingSize = stored.product.servingSize
        ingredients = stored.product.ingredients.map {
            Ingredient(
                nameOnLabel: $0.nameOnLabel, catalogueID: $0.catalogueID, amount: $0.amount, form: $0.form,
                inCatalogue: $0.catalogueID != nil)
        }
    }
}

struct ScheduleRevisionJSON: Encodable {
    let scheduleID: String
    let revisionID: String
    let revision: Int
    let effectiveFrom: String
    let state: String
    let productID: String
    let servings: String
    let times: [String]
    let days: String
    let startDay: String
    let endDay: String?
    /// The zone whose clock the times are on; nil when they follow the person.
    let timeZone: String?

    init(_ r: ScheduleRevision) {
        scheduleID = r.scheduleID.rawValue
        revisionID = r.id.rawValue
        revision = r.number
        effectiveFrom = r.effectiveFrom.description
        state = r.state.rawValue
        productID = r.plan.productID.rawValue
        servings = "\(r.plan.servings)"
        times = r.plan.times.map(\.description)
        days = r.plan.recurrence.summary
        startDay = r.plan.startDay.description
        endDay = r.plan.endDay?.description
        timeZone = r.plan.zone.identifier
    }
}

struct TodayDoseJSON: Encodable {
    let doseID: String
    let day: String
    let time: String
    /// The zone the schedule names, nil when it follows the person (then `day` and `time` are the schedule's own).
    let timeZone: String?
    let dueAt: String
    let productID: String
    let productName: String
    let servings: String
    let state: String
    let recordID: String?

    init(_ d: TodayDose) {
        doseID = d.doseID
        day = d.day.description
        time = d.time.description
        timeZone = d.zone.identifier
        dueAt = DateText.utc(d.dueAt)
        productID = d.productID.rawValue
        productName = d.productName
        servings = "\(d.servings)"
        state = d.state.rawValue
        recordID = d.record?.id.rawValue
    }
}

/// A refusal about one thing the person named on the command line, said with that name first ("photo.jpg: The file
/// does not exist.", "Area \"Left arm\": There is no such area in this journal."). The person's own terminal shows
/// it; a service's message itself never holds what was typed.
struct NamedRefusal: CairnError {
    let subject: String
    let underlying: any CairnError
    var errorKind: ErrorKind { underlying.errorKind }
    var userMessage: String { "\(subject): \(underlying.userMessage)" }
}

/// Runs `body`, naming `subject` in any refusal it throws.
func about<T>(_ subject: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let refusal as any CairnError where !(refusal is NamedRefusal) {
        throw NamedRefusal(subject: subject, underlying: refusal)
    }
}
