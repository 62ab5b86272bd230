#!/usr/bin/env python3
"""Every test suite has a time limit (`make lint` runs this).

A test that hangs must fail on its own, not run into CI's hard limit and
take the whole run with it. Each top-level type in a test target that holds
`@Test`s (its nested suites inherit the trait) carries `.timeLimit` in its
`@Suite` attribute: 3 minutes for tests in memory, 10 for those that wait
their real-time turn. Usage: check-time-limits.py [TESTS_DIR]
"""

import pathlib
import re
import sys

# Support targets, the fuzz and soak executables hold no suites.
SKIPPED = {"CastTestSupport", "CastX11TestSupport", "Fuzz", "Soak"}
DECLARATION = re.compile(r"^(?:@Suite\b.*?\s)?(?:final\s+)?(struct|enum|class|actor|extension)\s+(\w+)")


def missing(path):
    lines = path.read_text().split("\n")
    # Each top-level declaration with the attribute lines right above it (below its doc comment).
    blocks = []
    for number, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match:
            continue
        first = number
        while first > 0 and lines[first - 1].strip() and not lines[first - 1].startswith(("//", "}", "import")):
            first -= 1
        blocks.append((first, number, match.group(1), match.group(2)))
    found = []
    for index, (first, number, kind, name) in enumerate(blocks):
        end = blocks[index + 1][0] if index + 1 < len(blocks) else len(lines)
        if kind == "extension" or not any("@Test" in line for line in lines[number:end]):
            continue
        header = lines[first:number + 1]
        if not any(".timeLimit(" in line for line in header):
            found.append(f"{path}:{number + 1}: suite {name} has no .timeLimit")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "Tests")
    problems = []
    for path in sorted(root.rglob("*.swift")):
        if SKIPPED.intersection(path.relative_to(root).parts[:1]):
            continue
        problems += missing(path)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
