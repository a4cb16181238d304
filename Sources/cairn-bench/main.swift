print("cairn-bench")
