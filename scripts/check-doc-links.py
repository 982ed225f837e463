#!/usr/bin/env python3
"""Checks the links of README.md, docs/*.md and profiles/README.md.

Every relative link must point to a file of the repository, and a link with an anchor
(`page.md#section`) to a heading of that page, as GitHub names headings. Links outside the
repository (http, https) are listed, not fetched: the docs link only well-known public
references. A page that names one of the team's reference notes (radio-parameters.md and
the others kept beside the repository, not in it) is broken too: readers cannot open them,
so the docs cite the published source instead. Exit status 1 when a link is broken.

Usage: scripts/check-doc-links.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The team's notes beside the repository (../shared/reference), which readers do not have.
OUTSIDE_NOTES = re.compile(r"(?<![\w/.-])(radio-parameters|emulation-semantics|style-anchors|swift-notes|peers|keepalive)\.md\b")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def pages():
    yield "README.md"
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            yield os.path.join("docs", name)
    yield os.path.join("profiles", "README.md")


def prose(text):
    """The text outside fenced code blocks, with inline code removed, line by line."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "``", line)


def anchors(path):
    """GitHub's anchors for a page's headings."""
    seen = {}
    found = set()
    with open(path, encoding="utf-8") as file:
        text = file.read()
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not match:
            continue
        slug = match.group(1).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", slug.replace("`", ""))
        slug = slug.replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def main():
    broken = 0
    checked = 0
    external = []
    for page in pages():
        with open(os.path.join(ROOT, page), encoding="utf-8") as file:
            text = file.read()
        for number, line in prose(text):
            for note in OUTSIDE_NOTES.findall(line):
                print(f"{page}:{number}: cites {note}.md, a note outside the repository: cite the published source")
                broken += 1
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    external.append(f"{page}:{number}: {target}")
                    continue
                checked += 1
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) if path else os.path.join(ROOT, page)
                where = f"{page}:{number}: {target}"
                if not resolved.startswith(ROOT + os.sep) or not os.path.exists(resolved):
                    print(f"{where}: no such file")
                    broken += 1
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    print(f"{where}: no heading with that anchor")
                    broken += 1
    for link in external:
        print(f"outside the repository (not fetched): {link}")
    print(f"{checked} relative links checked, {broken} broken; {len(external)} outside the repository")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
