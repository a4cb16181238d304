#!/usr/bin/env python3
"""Writes the C stubs through which Swift code calls a native library that cairn opens on first use
(Sources/Native/NativeLoader/include/native_loader.h says why).

    scripts/native-stubs.py OUT.c SONAME HEADER [CFLAGS...] -- NAME...

For each NAME (a non-variadic function the HEADER declares; Swift cannot call variadic ones), a definition with
the header's own parameter and return types that calls the library's function, looked up in SONAME on the first
call. The C compiler checks every stub against the header again when Cairn is built, so a header that changes a
type fails the build instead of calling through the wrong type. Needs clang (the Swift toolchain has it);
run it again when an adapter starts calling another function of its library (the link then fails until it
has a stub, or silently loads the whole library again: NativeLoaderTests check that it does not).
"""
import json
import subprocess
import sys


def declarations(header, cflags, names):
    """name -> (return type, [(parameter type, parameter name)]) from clang's AST of HEADER."""
    found = {}
    for name in names:
        out = subprocess.run(["clang", "-x", "c", "-fsyntax-only", "-Xclang", "-ast-dump=json", "-Xclang",
                              "-ast-dump-filter=" + name, *cflags, "-"],
                             input=f"#include <{header}>\n" if not header.startswith('"') else f"#include {header}\n",
                             capture_output=True, text=True, check=True).stdout
        decoder, index, decl = json.JSONDecoder(), 0, None
        while index < len(out):
            while index < len(out) and out[index] in " \n\r\t":
                index += 1
            if index >= len(out) or out[index] != "{":
                nl = out.find("\n", index)
                index = len(out) if nl < 0 else nl + 1
                continue
            node, index = decoder.raw_decode(out, index)
            if node.get("kind") == "FunctionDecl" and node.get("name") == name:
                decl = node
        if decl is None:
            sys.exit(f"{name}: not declared by {header}")
        function_type = decl["type"]["qualType"]
        if function_type.rstrip(")").endswith("..."):
            sys.exit(f"{name} is variadic: Swift cannot call it, so it needs no stub")
        ret = function_type[:top_level_paren(function_type)].strip()
        params = [(p["type"]["qualType"], p.get("name") or f"a{i}")
                  for i, p in enumerate(n for n in decl.get("inner", []) if n.get("kind") == "ParmVarDecl")]
        found[name] = (ret, params)
    return found


def top_level_paren(function_type):
    """The index of the '(' that opens the parameter list (the last top-level group)."""
    depth, start = 0, None
    for i in range(len(function_type) - 1, -1, -1):
        c = function_type[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return i
    sys.exit(f"cannot read {function_type}")


def declarator(type_text, name):
    if "(*)" in type_text:
        return type_text.replace("(*)", f"(*{name})", 1)
    if type_text.endswith("]"):
        bracket = type_text.index("[")
        return f"{type_text[:bracket].rstrip()} {name}{type_text[bracket:]}"
    return f"{type_text} {name}" if type_text.endswith("*") is False else f"{type_text}{name}"


def main():
    out, soname, header = sys.argv[1:4]
    rest = sys.argv[4:]
    split = rest.index("--")
    cflags, names = rest[:split], rest[split + 1:]
    found = declarations(header, cflags, names)
    lines = []
    for name in names:
        ret, params = found[name]
        plist = ", ".join(declarator(t, n) for t, n in params) or "void"
        args = ", ".join(n for _, n in params)
        if ret == "void":
            lines.append(f"CAIRN_NATIVE_STUB_VOID(SONAME, {name}, ({plist}), ({args}))")
        else:
            lines.append(f"CAIRN_NATIVE_STUB(SONAME, {ret}, {name}, ({plist}), ({args}))")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


main()
