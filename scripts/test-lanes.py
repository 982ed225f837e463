#!/usr/bin/env python3
"""Prints the lanes of scripts/test.sh, read from the traits the suites carry in Tests/
(NetsimTestSupport), one line a lane: its name, a space, and its suites as a regular
expression's alternatives (`A|B|C`):

- `computes`: every suite with `.computes`;
- then each lane of `.playsLive(.LANE)` but the main one (`agreement`, `benches`, `peers`), so
  that a lane added to `PlaysLive.Lane` gets its process without an edit here or in test.sh.

The main lane (`.playsLive`, `.playsLive(.main)`) is what no other lane takes, and is not
printed. With a lane's name as the argument (`main` too), prints only that lane's suites.

Swift 6.3's test runner cannot select tests by trait or tag, so scripts/test.sh selects them by
these names, and the traits stay the one place a suite's lane is written. Suites are read at the
start of a line only; one written another way (nested, or `@Suite` without a trait) is refused,
as it would run in the main lane without a word.
"""
import pathlib
import re
import sys

TRAIT = re.compile(r"\.computes\b|\.playsLive\b")
COMPUTES = re.compile(r"\.computes\b")
LIVE_LANE = re.compile(r"\.playsLive\(\s*\.(\w+)")

# `@Suite(...)` (two levels of parentheses inside) at the start of a line, then the type.
SUITE = re.compile(r"^@Suite\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:struct|final class|enum)\s+(\w+)", re.M)
ANY_SUITE = re.compile(r"^\s*@Suite\b", re.M)


def read_suites(root):
    """Every suite in Tests/ with its attribute's text; exits if one is not in the form read
    here or carries not exactly one of the two traits, as a suite read wrong would run in the
    wrong lane without a word."""
    suites, problems = [], []
    for path in sorted(root.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        found = list(SUITE.finditer(text))
        if len(found) != len(ANY_SUITE.findall(text)):
            problems.append(f"{path}: a @Suite not read: write it `@Suite(TRAITS) struct|final class|enum NAME`, at a line's start")
        for match in found:
            name, attribute = match.group(2), re.sub(r'"(?:[^"\\]|\\.)*"', '""', match.group(1))
            if len(TRAIT.findall(attribute)) != 1:
                problems.append(f"{path}: {name} carries not exactly one of .computes and .playsLive")
            suites.append((name, attribute))
    names = [name for name, _ in suites]
    problems += [f"two suites named {name}: a lane selects suites by name" for name in sorted(set(names)) if names.count(name) > 1]
    if problems:
        sys.exit("\n".join(f"{sys.argv[0]}: {problem}" for problem in problems))
    return suites


def lane_of(attribute):
    if COMPUTES.search(attribute):
        return "computes"
    lane = LIVE_LANE.search(attribute)
    return lane.group(1) if lane else "main"


def main() -> None:
    if len(sys.argv) > 2:
        sys.exit(f"usage: {sys.argv[0]} [LANE]")
    lanes = {}
    for name, attribute in read_suites(pathlib.Path(__file__).resolve().parent.parent / "Tests"):
        lanes.setdefault(lane_of(attribute), []).append(name)
    if len(sys.argv) == 2:
        if sys.argv[1] not in lanes:
            sys.exit(f"{sys.argv[0]}: no suite in Tests/ is in the lane {sys.argv[1]} (lanes: {', '.join(sorted(lanes))})")
        print("|".join(sorted(lanes[sys.argv[1]])))
        return
    for lane in sorted(set(lanes) - {"main"}, key=lambda lane: (lane != "computes", lane)):
        print(lane, "|".join(sorted(lanes[lane])))


if __name__ == "__main__":
    main()
