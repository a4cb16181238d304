#!/usr/bin/env python3
"""Fails when a Swift file imports one of the package's own modules that its target does not declare in
Package.swift, or one a layer rule forbids (issue 37: the rules are enforced by the build, not only advice).

    scripts/check-imports.py            # from the repository root; `make test` runs it before building

SwiftPM's own `--explicit-target-dependency-import-check` reports nothing on Linux (Swift 6.3), so this reads the
package as SwiftPM does (`swift package dump-package`) and every `import` line of every target's Swift files.
System modules (Foundation, Glibc, Testing, ...) are not the package's and are not checked.
"""
import json
import os
import re
import subprocess
import sys

# Layer rules beyond Package.swift: the CLI reaches the vault only through CairnApp (ARCHITECTURE.md).
FORBIDDEN = {
    "CairnCLI": {"Storage": "the CLI reaches the vault only through CairnApp"},
    "cairn": {"Storage": "the executable reaches the vault only through CairnApp"},
}

IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def main():
    swift = os.environ.get("SWIFT") or "swift"
    dump = json.loads(subprocess.run([swift, "package", "dump-package"], capture_output=True, text=True, check=True).stdout)
    targets = dump["targets"]
    modules = {t["name"] for t in targets}
    problems = []
    for target in targets:
        if target["type"] == "system":
            continue
        name = target["name"]
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
        for root, _, files in os.walk(folder):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(root, file)
                with open(path, encoding="utf-8") as source:
                    for number, line in enumerate(source, 1):
                        match = IMPORT.match(line)
                        if not match:
                            continue
                        module = match.group(1)
                        if module in modules and module != name and module not in declared:
                            problems.append(f"{path}:{number}: imports {module}, which Package.swift does not declare "
                                            f"as a dependency of {name}")
                        why = FORBIDDEN.get(name, {}).get(module)
                        if why:
                            problems.append(f"{path}:{number}: imports {module}: {why}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-imports: {len(problems)} import(s) break the module graph", file=sys.stderr)
        return 1
    print("check-imports: every import is declared in Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
