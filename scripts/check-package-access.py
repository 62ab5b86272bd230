#!/usr/bin/env python3
"""Examples and the emulator use public API only (`make lint` runs this).

The examples (the `cast` tool, the emulator's command, the samples) live in
the same package as the modules, so the compiler lets them use `package`
declarations, which an app outside the package cannot. This names every
`package` declaration of Modules/ whose name Examples/ uses: a member access
(`.name`), a call (`name(`) or a type, where the name is declared with
`package` access only (a name some module or example also declares public
or internal is ambiguous by name and left to review). The emulator
(Modules/Emulator) is held to the same rule towards the other modules: it
uses their public API, or what they offer it as `@_spi(Receiver)` public
API, as a receiver outside the package would. Usage:
check-package-access.py [PACKAGE_DIR]
"""

import pathlib
import re
import sys

MODIFIERS = r"(?:(?:static|class|final|nonisolated|mutating|override|convenience|required|lazy|indirect|weak|unowned)\s+)*"
KINDS = r"(func|var|let|struct|class|enum|actor|protocol|typealias)"
PACKAGE = re.compile(r"\bpackage\s+" + MODIFIERS + KINDS + r"\s+`?([A-Za-z_][A-Za-z0-9_]*)")
OTHER = re.compile(
    r"(?:^|\s)(?:(?:public|open|internal|fileprivate|private)\s+)?" + MODIFIERS + KINDS
    + r"\s+`?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
STRING = re.compile(r'"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"')
INTERPOLATION = re.compile(r"\\\((.*?)\)(?=[^)]*(?:\\\(|\"|$))", re.DOTALL)
# Standard library and keyword names a module also declares with `package` access (on its own
# types): their uses in Examples are the standard library's.
STANDARD = {"any", "hasSuffix", "hasPrefix", "description", "count", "isEmpty", "first", "last"}


def code(path):
    """The file's text without comments, each string literal replaced by the code it interpolates."""
    # Each keeps its newlines, so that line numbers stay right.
    text = COMMENT.sub(lambda comment: "\n" * comment.group(0).count("\n"), path.read_text(encoding="utf-8"))
    return STRING.sub(
        lambda literal: " ".join(INTERPOLATION.findall(literal.group(0))) + "\n" * literal.group(0).count("\n"),
        text)


def declarations(paths, root):
    """The names `paths` declare `package` only (with one place each), and every other name they declare."""
    package_names, other_names = {}, set()
    for path in paths:
        text = code(path)
        for match in PACKAGE.finditer(text):
            package_names.setdefault(match.group(2), path.relative_to(root))
        for line in text.splitlines():
            if re.search(r"\bpackage\s", line):
                continue
            for match in OTHER.finditer(line):
                other_names.add(match.group(2))
    return package_names, other_names


def uses(consumers, providers, root, what):
    """Prints each use in `consumers` of a name `providers` declare `package` only; how many."""
    package_names, other_names = declarations(providers, root)
    for path in consumers:
        for line in code(path).splitlines():
            for match in OTHER.finditer(line):
                other_names.add(match.group(2))
        for match in PACKAGE.finditer(code(path)):
            other_names.add(match.group(2))
    only_package = {
        name: place for name, place in package_names.items() if name not in other_names and name not in STANDARD
    }
    found = 0
    for path in consumers:
        for number, line in enumerate(code(path).splitlines(), start=1):
            for name, place in only_package.items():
                if re.search(r"(\.|\b)" + re.escape(name) + r"\b", line) and re.search(
                        r"\.\s*" + re.escape(name) + r"\b|\b" + re.escape(name) + r"\s*[(<.]|:\s*" + re.escape(name)
                        + r"\b", line):
                    print(f"{path.relative_to(root)}:{number}: uses {name}, declared `package` in {place}")
                    found += 1
    if found:
        print(f"check-package-access: {found} use(s) of package API in {what}; offer it as public API")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    modules = sorted((root / "Modules").rglob("*.swift"))
    emulator = [path for path in modules if (root / "Modules/Emulator") in path.parents]
    others = [path for path in modules if path not in emulator]
    found = uses(sorted((root / "Examples").rglob("*.swift")), modules, root, "Examples")
    found += uses(emulator, others, root, "the emulator")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
