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

# `@Suite(...)` (two levels of parentheses inside) at the start of a line, then the type.
SUITE = re.compile(r"^@Suite\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:struct|final class|enum)\s+(\w+)", re.M)


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in LANES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(LANES)}")
    trait = re.compile(LANES[sys.argv[1]])
    root = pathlib.Path(__file__).resolve().parent.parent / "Tests"
    names = sorted(
        match.group(2)
        for path in root.rglob("*.swift")
        for match in SUITE.finditer(path.read_text(encoding="utf-8"))
        if trait.search(match.group(1))
    )
    if not names:
        sys.exit(f"{sys.argv[0]}: no suite in Tests/ carries the {sys.argv[1]} lane's trait")
    print("|".join(names))


if __name__ == "__main__":
    main()
