import Foundation
enum CairnCommandLine {
    static func run(_ args: [String]) -> Int32 { print("cairn"); return 0 }
}
