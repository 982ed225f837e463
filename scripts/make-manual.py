#!/usr/bin/env python3
"""Writes netsim's man page (man(7) roff) from the binary's own description of its commands.

Usage: scripts/make-manual.py NETSIM > netsim.1

Why this and not swift-argument-parser's `generate-manual` plugin: the plugin (present in the
pinned 1.8.2) builds the whole package again through SwiftPM's plugin sandbox before it writes a
page, minutes on 2 cores at every install. The page's content is the same either way: both read
`netsim --experimental-dump-help`, the parser's JSON of every command, option, default and
help text. So the page is always the installed binary's, generated at install time
(scripts/install.sh), never a copy that drifts from it.
"""

import datetime
import json
import subprocess
import sys


def escape(text):
    """Roff-safe text: backslashes and hyphens escaped, no line read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def paragraphs(text):
    """Help text as roff paragraphs: a blank line starts one, a single line break is kept."""
    return "\n.PP\n".join(escape(part).replace("\n", "\n.br\n") for part in text.strip().split("\n\n"))


def option_label(argument):
    names = []
    for name in argument.get("names", []):
        dashes = "--" if name["kind"] == "long" else "-"
        names.append(dashes + name["name"])
    if argument["kind"] == "positional":
        return "<" + argument.get("valueName", "value") + ">"
    label = ", ".join(names)
    if argument["kind"] == "option":
        label += " <" + argument.get("valueName", "value") + ">"
    return label


def arguments_section(command, out):
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        out.append(".TP")
        out.append("\\fB" + escape(option_label(argument)) + "\\fR")
        text = argument.get("abstract", "")
        if "defaultValue" in argument:
            text += " (default: " + argument["defaultValue"] + ")"
        if argument.get("discussion"):
            text += "\n" + (argument["discussion"] if isinstance(argument["discussion"], str) else "")
        out.append(escape(text.strip()))


def command_section(command, path, out):
    name = " ".join(path)
    out.append(".SS " + escape(name))
    if command.get("abstract"):
        out.append(escape(command["abstract"]))
    if command.get("discussion"):
        out.append(".PP")
        out.append(paragraphs(command["discussion"]))
    arguments_section(command, out)
    for sub in command.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            command_section(sub, path + [sub["commandName"]], out)


def manual(tool):
    root = tool["command"]
    name = root["commandName"]
    today = datetime.date.today().isoformat()
    out = [
        '.TH "%s" "1" "%s" "" "User Commands"' % (name.upper(), today),
        ".SH NAME",
        escape(name) + " \\- " + escape(root.get("abstract", "")),
        ".SH SYNOPSIS",
        "\\fB" + escape(name) + "\\fR \\fIcommand\\fR [\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        paragraphs(root.get("discussion") or root.get("abstract", "")),
        ".PP",
        escape("`" + name + " help COMMAND` prints the same for one command; the documentation is in the "
               "repository's README.md and docs/."),
        ".SH COMMANDS",
    ]
    for sub in root.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            command_section(sub, [name, sub["commandName"]], out)
    out.append(".SH OPTIONS")
    arguments_section(root, out)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/make-manual.py NETSIM > netsim.1")
    dump = subprocess.run([sys.argv[1], "--experimental-dump-help"], check=True, capture_output=True, text=True)
    sys.stdout.write(manual(json.loads(dump.stdout)))


if __name__ == "__main__":
    main()
