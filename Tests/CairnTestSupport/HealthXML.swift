import Foundation

/// Builds small Apple Health `export.xml` files for tests, in the export's own layout (an internal DTD subset,
/// `Record` elements with `MetadataEntry` children).
public enum HealthXML {
    /// The real sample export in the shared test data.
    public static let sample = SharedData.root.appendingPathComponent("health/export-sample.xml")

    /// The source attributes of a Watch and of an iPhone, as real exports write them.
    public static let watch = (
        name: "Sam's Apple Watch", version: "10.2",
        device: "<<HKDevice: 0x3012772a0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2>"
    )
    /// See `watch`.
    public static let phone = (
        name: "Sam's iPhone", version: "17.2.1",
        device: "<<HKDevice: 0x3008d6850>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.2.1>"
    )

    /// One `Record` element.
    public static func record(
        _ type: String, source: (name: String, version: String, device: String) = watch,
        unit: String? = "count", value: String, start: String, end: String? = nil,
        created: String? = nil, timeZone: String? = nil, extraMetadata: Bool = false
    ) -> String {
        var attributes = "type=\"\(type)\" sourceName=\"\(escape(source.name))\" sourceVersion=\"\(escape(source.version))\""
        if !source.device.isEmpty { attributes += " device=\"\(escape(source.device))\"" }
        if let unit { attributes += " unit=\"\(unit)\"" }
        attributes += " creationDate=\"\(created ?? end ?? start)\" startDate=\"\(start)\" endDate=\"\(end ?? start)\" value=\"\(value)\""
        var children = ""
        if extraMetadata { children += "\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"0\"/>" }
        if let timeZone { children += "\n  <MetadataEntry key=\"HKTimeZone\" value=\"\(timeZone)\"/>" }
        return children.isEmpty ? " <Record \(attributes)/>\n" : " <Record \(attributes)>\(children)\n </Record>\n"
    }

    /// The start of an export, up to and including `<Me>`: the XML declaration, the internal DTD subset real
    /// exports carry, `<HealthData>` and `<ExportDate>`. Records follow; `</HealthData>` closes it.
    public static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry
          key   CDATA #REQUIRED
          value CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_GB">
         <ExportDate value="2024-06-01 08:10:05 +0200"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-20"/>

        """

    /// A whole export around `body`.
    public static func document(_ body: String) -> String {
        header + body + "</HealthData>\n"
    }

    /// Writes `text` to `url`.
    public static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    /// Zips `xml` as `apple_health_export/export.xml` (with the zip tool), beside other members a real
    /// export.zip has, into `zipURL`.
    public static func writeZip(xml: String, to zipURL: URL, in scratch: Scratch) throws {
        let folder = scratch.url.appendingPathComponent("zip-\(UUID().uuidString)/apple_health_export")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("workout-routes"), withIntermediateDirectories: true)
        try write("<?xml version=\"1.0\"?><ClinicalDocument/>", to: folder.appendingPathComponent("export_cda.xml"))
        try write("<gpx/>", to: folder.appendingPathComponent("workout-routes/route_2024-01-01_9.00am.gpx"))
        try write(xml, to: folder.appendingPathComponent("export.xml"))
        let parent = folder.deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tools.path(of: "zip") ?? "/usr/bin/zip")
        process.currentDirectoryURL = parent
        process.arguments = [
            "-q", "-r", zipURL.path, "apple_health_export/workout-routes", "apple_health_export/export_cda.xml",
            "apple_health_export/export.xml",
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolFailure(tool: "zip", message: "exit \(process.terminationStatus)") }
        try FileManager.default.removeItem(at: parent)
    }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
