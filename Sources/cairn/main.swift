// The composition root stays a few lines; commands live in CLI.swift.
import Foundation
exit(CairnCommandLine.run(Array(CommandLine.arguments.dropFirst())))
