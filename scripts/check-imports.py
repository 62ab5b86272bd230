#!/usr/bin/env python3
"""Every `import` is a declared dependency (`make lint` runs this).

SwiftPM lets a target import a module that only a dependency of one of its
dependencies brings in: it builds today, and breaks when that other target
drops the dependency, or when an app embeds the module alone. For each
target of a package, this reads the dependencies Package.swift declares and
the modules its sources import, and names every import that is not declared
(the toolchain's own modules aside). Usage: check-imports.py [PACKAGE_DIR...]
"""

import pathlib
import re
import sys

# The toolchain's modules, which no package declares.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Glibc", "Musl", "Darwin",
    "Dispatch", "Testing", "XCTest", "Synchronization", "_Concurrency", "Observation", "RegexBuilder",
    "PackageDescription", "Swift", "_StringProcessing", "CompilerPluginSupport", "os", "Android",
}

TARGET = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary|macro)\(\s*name:\s*\"([^\"]+)\"")
PRODUCT = re.compile(r"\.product\(\s*name:\s*\"([^\"]+)\"")
STRING = re.compile(r"\"([^\"]+)\"")
IMPORT = re.compile(
    r"^(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE)


def balanced(text, start):
    """The text from `start` (an opening parenthesis or bracket) to its match."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    index = start
    in_string = False
    while index < len(text):
        character = text[index]
        if in_string:
            if character == "\\":
                index += 1
            elif character == "\"":
                in_string = False
        elif character == "\"":
            in_string = True
        elif character in pairs:
            stack.append(pairs[character])
        elif stack and character == stack[-1]:
            stack.pop()
            if not stack:
                return text[start:index + 1]
        index += 1
    return text[start:]


def argument(block, label):
    """The text of `label: …` in a call's arguments: a bracketed list or a string."""
    match = re.search(r"\b" + label + r":\s*", block)
    if not match:
        return None
    start = match.end()
    if block[start] in "[(":
        return balanced(block, start)
    string = STRING.match(block, start)
    return string.group(1) if string else None


def targets(package):
    text = re.sub(r"//[^\n]*", "", (package / "Package.swift").read_text())
    # Products named once as constants (`static let nioCore = Target.Dependency.product(…)` in an enum)
    # stand for their `.product(…)` wherever they are used (`Library.nioCore`).
    for constant in re.finditer(r"static let (\w+) = Target\.Dependency(\.product\([^)]*\))", text):
        text = re.sub(r"\b\w+\." + constant.group(1) + r"\b", constant.group(2).replace("\\", "\\\\"), text)
    for match in TARGET.finditer(text):
        kind, name = match.group(1), match.group(2)
        block = balanced(text, match.start() + len(kind) + 1)
        dependencies = argument(block, "dependencies") or "[]"
        declared = set(PRODUCT.findall(dependencies))
        declared |= {value for value in STRING.findall(re.sub(r"\.product\([^)]*\)", "", dependencies))}
        path = argument(block, "path")
        if path is None:
            folder = {"testTarget": "Tests", "executableTarget": "Sources"}.get(kind, "Sources")
            path = f"{folder}/{name}"
        yield kind, name, declared, package / path


def main(packages):
    problems = 0
    for package in packages:
        for kind, name, declared, folder in targets(pathlib.Path(package)):
            if kind == "systemLibrary":
                continue
            for source in sorted(folder.rglob("*.swift")):
                for module in sorted(set(IMPORT.findall(source.read_text()))):
                    # An executable target's module name is its name with '-' as '_' (SwiftPM's c99name).
                    modules = {dependency.replace("-", "_") for dependency in declared} | set(declared)
                    if module in TOOLCHAIN or module in modules or module == name:
                        continue
                    print(f"{source}: {name} imports {module}, which it does not declare")
                    problems += 1
    if problems:
        print(f"check-imports: {problems} undeclared import(s); add each to the target's dependencies")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))
