// The composition root stays a few lines: every command lives in the CairnCLI module.
import CairnCLI
import Foundation

exit(CairnCommandLine.run(Array(CommandLine.arguments.dropFirst())))
