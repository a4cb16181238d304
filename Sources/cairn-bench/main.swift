if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "skin" {
    try SkinBenchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
} else {
    print("cairn-bench")
}
