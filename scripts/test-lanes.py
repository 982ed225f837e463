#!/usr/bin/env python3
"""Prints the test suites of one lane of scripts/test.sh, as a regular expression's
alternatives (`A|B|C`), read from the traits the suites carry in Tests/ (NetsimTestSupport):

- `computes`: every suite with `.computes`;
- `benches`, `strategies`, `peers`: every suite with `.playsLive(.benches)` and so on.

The main lane is what no other lane takes. Swift 6.3's test runner cannot select tests by trait
or tag, so scripts/test.sh selects them by these names, and the traits stay the one place a
suite's lane is written. Top-level suites only: a nested suite runs in its parent's lane, as
its tests' names (`Module.Parent/Nested/test`) match the parent's.
"""
import pathlib
import re
import sys

LANES = {"computes": r"\.computes\b", "benches": r"\.playsLive\(\.benches\b",
         "strategies": r"\.playsLive\(\.strategies\b", "peers": r"\.playsLive\(\.peers\b"}
TRAIT = re.compile(r"\.computes\b|\.playsLive\b")

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


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in LANES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(LANES)}")
    trait = re.compile(LANES[sys.argv[1]])
    root = pathlib.Path(__file__).resolve().parent.parent / "Tests"
    names = sorted(name for name, attribute in read_suites(root) if trait.search(attribute))
    if not names:
        sys.exit(f"{sys.argv[0]}: no suite in Tests/ carries the {sys.argv[1]} lane's trait")
    print("|".join(names))


if __name__ == "__main__":
    main()
