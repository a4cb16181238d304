import Foundation
/// Placeholder until the CLI lands.
public enum CairnCommandLine {
    public static func run(_ args: [String]) -> Int32 { print("cairn"); return 0 }
}
