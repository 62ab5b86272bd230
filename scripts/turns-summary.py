#!/usr/bin/env python3
"""Where a test run's wall time went: the real-time turns (RealTimeTurns
prints each one's wait and hold) added up per lane, and the longest held.
Each lane's holds are a floor under the run's time, so this says which
tests to look at when the test phase grows. Usage: turns-summary.py LOG"""
import collections
import re
import sys

text = open(sys.argv[1], errors="replace").read()
held = collections.Counter()
turns = []
for match in re.finditer(r"real-time turn \((\w+)\): (\S+) waited ([\d.]+) s, held ([\d.]+) s", text):
    lane, test, hold = match.group(1), match.group(2), float(match.group(4))
    held[lane] += hold
    # The test's name without its module and suite: "name()/File.swift:12:6".
    turns.append((hold, lane, test.split("/")[-2] if "/" in test else test))
if turns:
    lanes = ", ".join(f"{lane} {seconds:.1f} s" for lane, seconds in held.most_common())
    print(f"real-time turns held: {lanes} ({len(turns)} turns)")
    for hold, lane, test in sorted(turns, reverse=True)[:15]:
        print(f"  {hold:5.1f} s {lane}: {test}")
