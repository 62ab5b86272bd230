#!/usr/bin/env python3
"""No function is longer than 60 lines (`make lint` runs this).

Counts, for every `func`, `init` and `deinit` in Modules/ and Examples/
(generated code aside), the lines from its declaration to its closing
brace, and names each one over the limit: a function that long mixes
concerns to split (Docs/STYLE.md). Usage: check-function-length.py [PACKAGE_DIR]
"""

import pathlib
import re
import sys

LIMIT = 60
DECLARATION = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|open|static|class|final|"
    r"override|mutating|nonisolated|convenience|required|isolated|dynamic)\s+|@_spi\(\w+\)\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?|deinit)")


def code_characters(lines, start):
    """Yields (line index, character) of the code from line `start` on: no comments, no string contents."""
    in_block_comment = 0
    in_multiline_string = False
    for index in range(start, len(lines)):
        line = lines[index]
        position = 0
        in_string = False
        while position < len(line):
            rest = line[position:]
            if in_block_comment:
                if rest.startswith("*/"):
                    in_block_comment -= 1
                    position += 2
                    continue
                if rest.startswith("/*"):
                    in_block_comment += 1
                    position += 2
                    continue
                position += 1
                continue
            if in_multiline_string:
                if rest.startswith('"""'):
                    in_multiline_string = False
                    position += 3
                    continue
                position += 2 if rest.startswith("\\") else 1
                continue
            if in_string:
                if rest.startswith("\\"):
                    position += 2
                    continue
                if rest.startswith('"'):
                    in_string = False
                position += 1
                continue
            if rest.startswith("//"):
                break
            if rest.startswith("/*"):
                in_block_comment += 1
                position += 2
                continue
            if rest.startswith('"""'):
                in_multiline_string = True
                position += 3
                continue
            if rest.startswith('"'):
                in_string = True
                position += 1
                continue
            yield index, line[position]
            position += 1


def length(lines, start):
    """Lines from `start` to the closing brace of the body that follows; None for a body-less declaration."""
    depth = 0
    for index, character in code_characters(lines, start):
        if depth == 0 and index > start + 12:
            return None
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0:
                return index - start + 1
    return None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = 0
    paths = sorted((root / "Modules").rglob("*.swift")) + sorted((root / "Examples").rglob("*.swift"))
    for path in paths:
        if "Generated" in path.parts:
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines):
            match = DECLARATION.match(line)
            if not match or line.lstrip().startswith("//"):
                continue
            count = length(lines, number)
            if count and count > LIMIT:
                print(f"{path.relative_to(root)}:{number + 1}: {match.group(1)} is {count} lines (at most {LIMIT})")
                found += 1
    if found:
        print(f"check-function-length: {found} function(s) longer than {LIMIT} lines; split them by concern")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
