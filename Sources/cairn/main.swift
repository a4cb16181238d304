// The composition root stays a few lines: every command lives in the CairnCLI module.
import CairnApp
import CairnCLI
import Foundation

// Tesseract's OpenMP reads OMP_THREAD_LIMIT only at process start: re-exec once with it set if missing.
ThreadLimit.ensureThreadLimit(programs: ["cairn"])
exit(CairnCommandLine.run(Array(CommandLine.arguments.dropFirst())))
