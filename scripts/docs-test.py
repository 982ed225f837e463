#!/usr/bin/env python3
"""Runs every command block of README.md and docs/*.md, and fails if one exits non-zero.

Usage: scripts/docs-test.py [NETSIM [PAGE...]]   (NETSIM default .build/debug/netsim, which
scripts/test.sh passes; PAGE, e.g. docs/tune.md, runs that page's blocks only)

A command block is a fenced block tagged `sh`. Each runs in bash (`set -euo pipefail`) in a
scratch directory that links the repository's clients/, workloads/, profiles/, scripts/,
deploy/ and examples/, with `netsim`, `.build/release/netsim` and `.build/debug/netsim` all
the binary under test, and $DOCS_HTTP the address of a local HTTP server (the docs' example.com
stands for it, so nothing needs the network). A block gets 120 s.

A block that starts a netsim run in the background (`&`) waits for it with `listening PORT...`,
which returns once each TCP port listens here (read from /proc/net/tcp, so no connection is
made through the phone), rather than for a fixed time. A background job still running when the
block's commands are done gets SIGTERM (a netsim run stops cleanly on it and writes its
report), so that a run need not guess a `--duration` long enough for a loaded machine. Every
background job must exit 0.

HTML comments in the text that introduces a block (after the block before it, on lines of their
own or at the end of a line) say how to run it, so the reason stays in the page's source next
to the example, where a reader of the rendered page does not see it:

    <!-- docs-test: skip: WHY -->            not run (docker, a cluster, the network...)
    <!-- docs-test: "OLD" -> "NEW" -->       run with OLD replaced by NEW (a shorter duration,
                                             fewer devices, a job in the background)
    <!-- docs-test: before: COMMAND -->      run COMMAND first (a file the example reads)

Substitutions must each match, so an example edited out from under one fails the test.
"""

import http.server
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINKED = ["clients", "workloads", "profiles", "scripts", "deploy", "examples"]
TIMEOUT = 120
DIRECTIVE = re.compile(r"<!-- docs-test: (.*?) -->")
SUBSTITUTION = re.compile(r'^"(.*)" -> "(.*)"$')
# `listening PORT...`: waits up to 30 s for each TCP port to be in the LISTEN state (0A) on this
# machine, IPv4 or IPv6, as /proc/net/tcp shows it: `sl local_address rem_address st`.
LISTENING = r'''listening() {
    local port pattern tries
    for port in "$@"; do
        pattern="$(printf ':%04X' "$port") [0-9A-F]+:[0-9A-F]{4} 0A "
        for tries in $(seq 300); do
            grep -Eq "$pattern" /proc/net/tcp /proc/net/tcp6 2>/dev/null && continue 2
            sleep 0.1
        done
        echo "docs test: nothing listens on port $port after 30 s" >&2
        return 1
    done
}
'''
# The jobs still running at the block's end are stopped, and each must exit 0. A block that fails
# before its end stops them too (the trap), so that its failure is reported at once, not as the
# timeout of a run that holds the output open.
STOP_JOBS = 'for job in $(jobs -p); do kill -TERM "$job" 2>/dev/null || true; wait "$job"; done\n'
STOP_JOBS_ON_EXIT = "trap 'kill -TERM $(jobs -p) 2>/dev/null || true' EXIT\n"


class Block:
    def __init__(self, page, line, text, directives):
        self.page, self.line, self.text = page, line, text
        self.skip = None
        self.before = []
        self.substitutions = []
        for directive in directives:
            if directive.startswith("skip: "):
                self.skip = directive[len("skip: "):]
            elif directive.startswith("before: "):
                self.before.append(directive[len("before: "):])
            elif match := SUBSTITUTION.match(directive):
                self.substitutions.append((match.group(1), match.group(2)))
            else:
                raise SystemExit(f"{page}:{line}: unknown docs-test directive: {directive}")

    def where(self):
        return f"{self.page}:{self.line}"

    def script(self):
        text = self.text
        for old, new in self.substitutions:
            if old not in text:
                raise SystemExit(f"{self.where()}: the docs-test substitution's \"{old}\" is not in the block")
            text = text.replace(old, new)
        return "set -euo pipefail\n" + LISTENING + STOP_JOBS_ON_EXIT + "\n".join(self.before) + "\n" + text + "\n" + STOP_JOBS


def blocks(page):
    """The sh blocks of a page, each with the directives written since the block before it."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    directives = []
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("```"):
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            if line == "```sh":
                relative = str(page.relative_to(ROOT))
                found.append(Block(relative, index + 1, "\n".join(lines[index + 1:end]), directives))
            directives = []
            index = end + 1
            continue
        found_here = DIRECTIVE.findall(lines[index])
        if lines[index].count("<!-- docs-test:") != len(found_here):
            raise SystemExit(f"{page.relative_to(ROOT)}:{index + 1}: a docs-test comment must open and close on one line")
        directives += found_here
        index += 1
    return found


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def workspace(netsim):
    directory = pathlib.Path(tempfile.mkdtemp(prefix="netsim-docs-"))
    for name in LINKED:
        (directory / name).symlink_to(ROOT / name)
    for place in ["bin", ".build/release", ".build/debug"]:
        (directory / place).mkdir(parents=True)
        (directory / place / "netsim").symlink_to(netsim)
    (directory / "www").mkdir()
    (directory / "www" / "index.html").write_text("<p>a page for the docs' examples</p>\n")
    return directory


def run(block, directory, environment):
    started = time.monotonic()
    process = subprocess.Popen(["bash", "-c", block.script()], cwd=directory, env=environment, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = f"timed out after {TIMEOUT} s"
    # Whatever the block left running (a server it started) goes with it.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return status, output.decode("utf-8", "replace"), time.monotonic() - started


def main():
    netsim = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".build/debug/netsim").resolve()
    if not os.access(netsim, os.X_OK):
        raise SystemExit(f"docs test: {netsim} is not an executable (build first)")
    pages = [ROOT / page for page in sys.argv[2:]] or [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    every = [block for page in pages for block in blocks(page)]
    directory = workspace(netsim)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **k: QuietHandler(*a, directory=str(directory / "www"), **k))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    environment = dict(os.environ, PATH=f"{directory / 'bin'}:{os.environ['PATH']}",
                       DOCS_HTTP=f"127.0.0.1:{server.server_address[1]}", NO_COLOR="1")
    environment.pop("GITHUB_STEP_SUMMARY", None)
    failed, skipped, started = [], [], time.monotonic()
    for block in every:
        if block.skip:
            skipped.append(block)
            continue
        status, output, seconds = run(block, directory, environment)
        verdict = "ok" if status == 0 else f"FAILED ({status})"
        print(f"docs test: {block.where()} {verdict} in {seconds:.1f} s", flush=True)
        if status != 0:
            failed.append(block)
            print(f"--- {block.where()}, as run:\n{block.script()}--- its output:\n{output[-4000:]}---", flush=True)
    server.shutdown()
    subprocess.run(["rm", "-rf", str(directory)])
    ran = len(every) - len(skipped)
    print(f"docs test: {ran} command blocks run, {len(failed)} failed, {len(skipped)} skipped "
          f"(each with its reason in the page), {time.monotonic() - started:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
