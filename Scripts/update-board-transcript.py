#!/usr/bin/env python3
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

"""Regenerates the board transcript in the README from the real program.

The transcript sits between the markers `<!-- board transcript: start -->` and
`<!-- board transcript: end -->`. Its commands (the lines that start with "> ") are piped into
`swift run board`, and the block is replaced by what the program prints, from the first command on.
To keep the README short, the picture, the list of figures and the selection that follow each
command are shown as one "..." line, except after the last command that draws the board.

The test `theReadmeTranscriptIsWhatTheProgramPrints` checks the block against the program, with
each "..." standing for the lines left out.

Usage: Scripts/update-board-transcript.py   (from anywhere in the repository)
"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme_path = root / "README.md"
readme = readme_path.read_text()
pattern = re.compile(r"(<!-- board transcript: start -->\n```text\n)(.*?)(```\n<!-- board transcript: end -->)", re.S)
match = pattern.search(readme)
if not match:
    sys.exit("README.md has no board transcript markers")

commands = [line[2:] for line in match.group(2).splitlines() if line.startswith("> ")]
if not commands:
    sys.exit("the README's board transcript has no commands")
run = subprocess.run(
    ["swift", "run", "--quiet", "board"],
    cwd=root,
    input="\n".join(commands) + "\n",
    capture_output=True,
    text=True,
    timeout=600,
)
if run.returncode != 0:
    sys.exit(f"swift run board failed:\n{run.stderr}")

lines = run.stdout.splitlines()
first = next(i for i, line in enumerate(lines) if line.startswith("> "))
lines = lines[first:]

# A render is the frame (two borders), the list of figures and the selection line.
renders = [i for i, line in enumerate(lines) if line.startswith("+-") and (i == 0 or not lines[i - 1].startswith("|"))]
last = renders[-1] if renders else None
shown = []
i = 0
while i < len(lines):
    line = lines[i]
    if line.startswith("+-") and i != last and (i == 0 or not lines[i - 1].startswith("|")):
        end = i + 1
        while not lines[end].startswith("+-"):
            end += 1
        end += 1  # past the bottom border
        while end < len(lines) and (lines[end].startswith("figures: ") or lines[end].startswith("selected: ")):
            end += 1
        shown.append("...")
        i = end
        continue
    shown.append(line)
    i += 1

block = "\n".join(shown) + "\n"
readme_path.write_text(readme[: match.start(2)] + block + readme[match.end(2) :])
print(f"README.md: board transcript of {len(commands)} commands, {len(shown)} lines")
