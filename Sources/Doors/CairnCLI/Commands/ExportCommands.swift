import CairnApp
import CairnCore
import Foundation

/// `cairn export`: files for other systems, written where the person says.
enum ExportCommands {
    static var group: CommandGroup {
        CommandGroup(
            name: "export", abstract: "Files for other systems: the Regimen and outcomes as FHIR.",
            children: [.command(ExportFHIRCommand.self)])
    }
}

/// `cairn export fhir`.
struct ExportFHIRCommand: Command {
    static let name = "fhir"
    static let readsOnly = true
    static let abstract = "Write the Regimen and outcomes as one FHIR R4 document (JSON) for a clinician's system."
    static let discussion = """
        One FHIR R4 Bundle of type document: a Composition whose text says these are self-reported records
        and what the file holds, a Patient (with nothing identifying unless you give --name), each product as
        a MedicationStatement, each dose logged as taken or skipped as a MedicationAdministration (a skipped
        dose is never "taken"), and each day's outcome value as an Observation, with its LOINC code where a
        standard one exists. No photos. By default the whole history of both journals.
        """
    static let out = Option("--out", "FILE", help: "Write to FILE (created with owner-only access).", required: true)
    static let from = Option("--from", "DATE", help: "Only days in this range, YYYY-MM-DD (default: the whole history).")
    static let to = Option("--to", "DATE", help: "Only days in this range, YYYY-MM-DD (default: the whole history).")
    static let journals = Option("--journals", "LIST", help: "regimen, outcomes or regimen,outcomes (default: both).")
    static let patientName = Option("--name", "NAME", help: "A name for the Patient (default: none).")
    static let options: [Option] = [out, from, to, journals, patientName]

    let out: String
    let request: FHIRExportRequest

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        guard let out = arguments.value(Self.out) else { throw UsageError("--out FILE is required.") }
        self.out = arguments.filePath(out)
        request = try FHIRExportRequest(
            from: try arguments.value(Self.from, as: LocalDay.self), to: try arguments.value(Self.to, as: LocalDay.self),
            journals: try arguments.value(Self.journals, as: FHIRJournals.self) ?? .all, patientName: arguments.value(Self.patientName))
    }

    func run(in context: CommandContext) throws {
        let fhir = try context.openApplication().fhir
        do {
            try fhir.write(request, to: out)
        } catch is OutputFileError {
            throw ExportError.cannotWrite
        }
        context.console.print("Wrote the FHIR document to the file.")
    }
}
