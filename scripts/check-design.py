#!/usr/bin/env python3
"""Docs/DESIGN.md agrees with Package.swift and the Makefile (`make lint` runs this).

Checked: the Layout block lists every module folder under Modules/ with its
module name, and names no module that does not exist; its System/ entry
lists every system library target; every `…Tests` DESIGN names is a test
target or a suite;
the Makefile line lists every target of the Makefile's .PHONY; and each
"CastX depends on A, B, … only" sentence names exactly CastX's module
dependencies in Package.swift; and no "CastX links no X11 and no video
codec" reaches XCB, a video encoder, libyuv or EGL through its dependencies. Usage: check-design.py [PACKAGE_DIR]
"""

import pathlib
import re
import sys

TARGET = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"([^\"]+)\"(.*?)\n        \)",
                    re.DOTALL)
PATH = re.compile(r"path:\s*\"([^\"]+)\"")
DEPENDENCIES = re.compile(r"dependencies:\s*\[(.*?)\]", re.DOTALL)
QUOTED = re.compile(r"(?<!name: )\"(Cast[A-Za-z]+|C[A-Z][A-Za-z0-9]+)\"")
LAYOUT_MODULE = re.compile(r"^  ([A-Za-z]+)/\s+(Cast[A-Za-z]+)\s", re.MULTILINE)
NO_VIDEO = re.compile(r"(Cast[A-Za-z]+) links no X11 and no video codec")
# What "links no X11 and no video codec" rules out: X11, the video encoders, libyuv and EGL.
VIDEO_LIBRARIES = {"CXCB", "CVPX", "CH264", "CAOM", "CYUV", "CEGL", "CAVCodec"}
DEPENDS_ONLY = re.compile(r"(Cast[A-Za-z]+) depends on ((?:Cast[A-Za-z]+(?: \([^)]*\))?(?:, | and )?)+?)(?: \(plus [^)]*\))? only")


def closure(targets, module):
    """Every target `module` depends on, directly or through others."""
    seen, pending = set(), [module]
    while pending:
        for name in targets.get(pending.pop(), (None, None, set()))[2]:
            if name not in seen:
                seen.add(name)
                pending.append(name)
    return seen


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    package = (root / "Package.swift").read_text(encoding="utf-8")
    design = (root / "Docs/DESIGN.md").read_text(encoding="utf-8")
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    targets = {}
    for kind, name, body in TARGET.findall(package):
        path = PATH.search(body)
        dependencies = DEPENDENCIES.search(body)
        targets[name] = (kind, path.group(1) if path else None,
                         set(QUOTED.findall(dependencies.group(1))) if dependencies else set())
    problems = []
    layout = design[design.index("## Layout"):design.index("## Dependencies")]
    listed = {module: folder for folder, module in LAYOUT_MODULE.findall(layout)}
    for name, (kind, path, _) in targets.items():
        if kind == "target" and path and re.fullmatch(r"Modules/[A-Za-z]+", path):
            folder = path.split("/")[1]
            if listed.get(name) != folder:
                problems.append(f"the Layout lists no {folder}/ {name} (Package.swift's {path})")
    for module, folder in listed.items():
        if module not in targets:
            problems.append(f"the Layout lists {folder}/ {module}, which Package.swift does not have")
    system = re.search(r"System/\s+(.*?)\(system library targets\)", layout, re.DOTALL)
    system_listed = set(re.findall(r"\bC[A-Z][A-Za-z0-9]+\b", system.group(1))) if system else set()
    for name, (kind, _, _) in targets.items():
        if kind == "systemLibrary" and name not in system_listed:
            problems.append(f"the Layout's System/ entry lacks {name}")
    for name in system_listed - {name for name, (kind, _, _) in targets.items() if kind == "systemLibrary"}:
        problems.append(f"the Layout's System/ entry names {name}, which is not a system library target")
    suites = set()
    for path in (root / "Tests").rglob("*.swift"):
        suites.update(re.findall(r"\bstruct\s+([A-Z][A-Za-z]+Tests)\b", path.read_text(encoding="utf-8")))
    for name in sorted(set(re.findall(r"\b([A-Z][A-Za-z]+Tests)\b", design))):
        if name not in targets and name not in suites:
            problems.append(f"DESIGN names {name}, which is neither a test target nor a suite")
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.MULTILINE)
    make_line = re.search(r"^Makefile\s+(.*?)\n(?=\S)", layout, re.MULTILINE | re.DOTALL)
    if phony and make_line:
        for goal in phony.group(1).split():
            if not re.search(r"\b" + re.escape(goal) + r"\b", make_line.group(1)):
                problems.append(f"the Layout's Makefile line lacks the target {goal}")
    prose = re.sub(r"\s+", " ", design[design.index("## Dependencies"):])
    for match in DEPENDS_ONLY.finditer(prose):
        module = match.group(1)
        named = set(re.findall(r"Cast[A-Za-z]+", re.sub(r"\([^)]*\)", "", match.group(2))))
        if module not in targets:
            problems.append(f"DESIGN says {module} depends on {sorted(named)}, and there is no {module}")
            continue
        actual = {name for name in targets[module][2] if name.startswith("Cast")}
        if named != actual:
            problems.append(f"DESIGN says {module} depends on {sorted(named)} only; Package.swift: {sorted(actual)}")
    for match in NO_VIDEO.finditer(prose):
        module = match.group(1)
        linked = closure(targets, module) & VIDEO_LIBRARIES
        if linked:
            problems.append(f"DESIGN says {module} links no X11 and no video codec; it links {sorted(linked)}")
    for problem in problems:
        print(f"Docs/DESIGN.md: {problem}")
    if problems:
        print(f"check-design: {len(problems)} difference(s) from Package.swift and the Makefile")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
