#!/usr/bin/env python3
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

"""Records what vim's undo tree does, as an oracle for the branching history (`historyShape = .tree`).

The branching history promises to match vim step for step (BranchingHistory.md): node numbers are
vim's change numbers (`changenr()`), `undo()` is `u`, `redo()` is CTRL-R, `earlier(n)` and
`later(n)` are `g-` and `g+` (and `:earlier N`, `:later N`), `jump(toNode:)` is `:undo N`, and a
change after undos starts a new branch. This script runs seeded random sequences of those commands
in a real vim (headless: `vim -Nu NONE -i NONE -n -es`) and writes, after every command, the
buffer's text, `changenr()` and `undotree().seq_last`, and the error a command gave, if any
(`E830: Undo number N not found` from `:undo N`).

The buffer is one line, empty at the start. A change appends a space and a word that no other change
of the sequence appends (`a`, `b`, ..., `z`, `ba`, ...), then breaks the undo sequence as `:help
undo-break` says (`let &undolevels = &undolevels`), so that every change is exactly one undo step;
the script checks that (each change takes the next change number, `seq_cur` is `changenr()`).

Commands (`op` in the fixture): `change` (`word`); `u`, `^R`, `g-`, `g+` (normal-mode keys, with
`count` when it is above 1: `3u` is three undos); `:undo` with `n` (`:undo N`: existing numbers,
0 among them, and numbers past the newest change) or without (`:undo`, the same as `u`); `:redo`;
`:earlier` and `:later` with `n` (by count, not by time). Runs of the same command are drawn on
purpose (several undos, then several redos, ...).

Sequences: hand-written ones first (`golden.*`: the examples of vim's help and the edges that
BranchingHistory.md names; `found.*`: the smallest reproductions of differences the random runs
turned up, none so far), then `random.<seed>` ones.

Usage:
    python3 Scripts/record-vim-oracle.py [--sequences N] [--vim /usr/bin/vim] [--out FILE]

The output, by default Tests/Fixtures/VimUndoTree/vim-undo-tree.json, is deterministic for one vim
build: running the script again writes the same bytes. The vim version is written in the fixture.
The fixture's README describes the format.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

FORMAT_VERSION = 1
DEFAULT_SEQUENCES = 200
DEFAULT_OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "Tests",
    "Fixtures",
    "VimUndoTree",
    "vim-undo-tree.json",
)
MIN_OPS, MAX_OPS = 30, 60

# The vim side: runs the commands of a JSON file in one buffer and writes the outcome of each.
# Every command runs inside one function call, so nothing syncs the undo sequence but the commands
# themselves and the explicit break after each change.
VIM_RUNNER = r"""
set nocompatible undolevels=1000 nomore shortmess+=I
function! s:Run(input, output) abort
  let l:steps = []
  for l:op in json_decode(join(readfile(a:input), "\n"))
    let l:before = undotree().seq_last
    let l:error = ''
    try
      let l:count = get(l:op, 'count', 1)
      let l:prefix = l:count > 1 ? string(l:count) : ''
      if l:op.op ==# 'change'
        call setline(1, getline(1) . ' ' . l:op.word)
        let &undolevels = &undolevels
      elseif l:op.op ==# 'u'
        execute 'normal! ' . l:prefix . 'u'
      elseif l:op.op ==# '^R'
        execute 'normal! ' . l:prefix . "\<C-R>"
      elseif l:op.op ==# 'g-' || l:op.op ==# 'g+'
        execute 'normal! ' . l:prefix . l:op.op
      elseif l:op.op ==# ':undo'
        execute has_key(l:op, 'n') ? 'undo ' . l:op.n : 'undo'
      elseif l:op.op ==# ':redo'
        redo
      elseif l:op.op ==# ':earlier' || l:op.op ==# ':later'
        execute l:op.op[1:] . ' ' . l:op.n
      else
        throw 'unknown command ' . l:op.op
      endif
    catch /^Vim\%((\a\+)\)\=:E/
      let l:error = matchstr(v:exception, 'E\d\+: .*')
    endtry
    let l:tree = undotree()
    let l:step = {'text': getline(1), 'node': changenr(), 'last': l:tree.seq_last, 'cur': l:tree.seq_cur}
    if l:error !=# ''
      let l:step.error = l:error
    endif
    if line('$') != 1
      let l:step.lines = line('$')
    endif
    call add(l:steps, l:step)
  endfor
  call writefile([json_encode({'version': execute('version'), 'steps': l:steps})], a:output)
endfunction
call s:Run($ORACLE_IN, $ORACLE_OUT)
qall!
"""


def word(index):
    """The word change `index` (0-based) appends: a, b, ..., z, ba, bb, ... (distinct, no digits)."""
    letters = ""
    while True:
        letters = chr(ord("a") + index % 26) + letters
        index //= 26
        if index == 0:
            return letters


class Vim:
    """Runs command lists in a headless vim, one process per sequence."""

    def __init__(self, path):
        self.path = path
        self.workdir = tempfile.mkdtemp(prefix="vim-oracle-")
        self.runner = os.path.join(self.workdir, "runner.vim")
        with open(self.runner, "w") as out:
            out.write(VIM_RUNNER)
        self.version = None

    def run(self, ops):
        """The steps vim records for `ops` (one per command), after checking them."""
        source = os.path.join(self.workdir, "in.json")
        result = os.path.join(self.workdir, "out.json")
        with open(source, "w") as out:
            json.dump(ops, out)
        if os.path.exists(result):
            os.remove(result)
        env = dict(os.environ, ORACLE_IN=source, ORACLE_OUT=result, HOME=self.workdir)
        subprocess.run(
            [self.path, "-Nu", "NONE", "-i", "NONE", "-n", "-es", "-S", self.runner],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=60,
            check=False,
        )
        with open(result) as recorded:
            outcome = json.load(recorded)
        version = outcome["version"].strip().splitlines()
        # The first lines: the version, its patches, who built it; not the build options.
        version = "\n".join(line for line in version[:3])
        if self.version is None:
            self.version = version
        elif self.version != version:
            sys.exit("vim's version changed during the run")
        steps = outcome["steps"]
        check(ops, steps)
        return steps


def check(ops, steps):
    """What the recording relies on: every change is one undo step numbered after the newest."""
    if len(steps) != len(ops):
        sys.exit(f"vim recorded {len(steps)} steps for {len(ops)} commands")
    last = 0
    for op, step in zip(ops, steps):
        if step["cur"] != step["node"]:
            sys.exit(f"seq_cur {step['cur']} is not changenr() {step['node']} after {op}")
        if "lines" in step:
            sys.exit(f"the buffer has {step['lines']} lines after {op}")
        if op["op"] == "change":
            if step["last"] != last + 1 or step["node"] != last + 1 or "error" in step:
                sys.exit(f"the change {op} was not one undo step: {step}")
        elif step["last"] != last:
            sys.exit(f"{op} made a change: {step}")
        if "error" in step and not (op["op"] == ":undo" and step["error"].startswith("E830:")):
            sys.exit(f"unexpected error after {op}: {step['error']}")
        last = step["last"]


def random_ops(seed):
    """A random command list: changes, undos and redos, time moves and jumps, in runs."""
    rng = random.Random(seed)
    length = rng.randint(MIN_OPS, MAX_OPS)
    ops = []
    changes = 0
    kinds = [
        ("change", 26),
        ("u", 16),
        ("^R", 12),
        ("g-", 9),
        ("g+", 9),
        (":undo", 12),
        (":earlier", 5),
        (":later", 5),
        (":undo-plain", 2),
        (":redo", 2),
    ]
    names = [name for name, _ in kinds]
    weights = [weight for _, weight in kinds]
    while len(ops) < length:
        kind = rng.choices(names, weights)[0]
        # A run of one to three of the same command (changes come in longer runs).
        run = rng.choice([1, 1, 1, 2, 3]) if kind != "change" else rng.choice([1, 1, 2, 3, 4])
        for _ in range(run):
            if len(ops) >= length:
                break
            if kind == "change":
                ops.append({"op": "change", "word": word(changes)})
                changes += 1
            elif kind in ("u", "^R", "g-", "g+"):
                op = {"op": kind}
                if rng.random() < 0.2:
                    op["count"] = rng.randint(2, 4)
                ops.append(op)
            elif kind == ":undo":
                draw = rng.random()
                if draw < 0.12:
                    n = 0
                elif draw < 0.27:
                    n = changes + rng.randint(1, 3)  # past the newest change: E830
                else:
                    n = rng.randint(0, changes)
                ops.append({"op": ":undo", "n": n})
            elif kind in (":earlier", ":later"):
                ops.append({"op": kind, "n": rng.choice([0, 1, 1, 2, 3, 5, 10, 100])})
            elif kind == ":undo-plain":
                ops.append({"op": ":undo"})
            else:
                ops.append({"op": ":redo"})
    return ops


def changes(count, start=0):
    return [{"op": "change", "word": word(start + index)} for index in range(count)]


# Hand-written sequences (`golden.*`): the help's examples with words appended instead of letters
# deleted, and the sentences of BranchingHistory.md that name an edge, each with what it checks.
# The smallest reproductions of differences the random runs turn up go here too, as `found.*`.
GOLDEN = [
    (
        "golden.helpUndoBranches",
        "`:help undo-branches`: three changes, three undos, three changes, g- six times, "
        "`:later 100` and `:earlier 100`",
        changes(3)
        + [{"op": "u"}] * 3
        + changes(3, start=3)
        + [{"op": "g-"}] * 6
        + [{"op": ":later", "n": 100}, {"op": ":earlier", "n": 100}],
    ),
    (
        "golden.userManualOneToo",
        "usr_32.txt: two changes, undo, a change, two undos and two redos, `:undo 2`, a change, "
        "g- four times and g+ four times",
        changes(2)
        + [{"op": "u"}]
        + changes(1, start=2)
        + [{"op": "u"}, {"op": "u"}, {"op": "^R"}, {"op": "^R"}, {"op": ":undo", "n": 2}]
        + changes(1, start=3)
        + [{"op": "g-"}] * 4
        + [{"op": "g+"}] * 4,
    ),
    (
        "golden.redoAtALeafThatIsNotTheNewest",
        "redo at a leaf does nothing, even when it is not the newest change; undo then redo "
        "enters the branch the jump entered",
        changes(2)
        + [{"op": "u"}]
        + changes(1, start=2)
        + [{"op": ":undo", "n": 2}, {"op": "^R"}, {"op": "^R", "count": 3}, {"op": ":redo"}]
        + [{"op": "u"}, {"op": "^R"}, {"op": "u"}, {"op": "u"}, {"op": "^R"}, {"op": "^R"}],
    ),
    (
        "golden.jumpsThatFailAndJumpsThatDoNotMove",
        "`:undo N` past the newest change fails (E830) and changes nothing, on an empty history "
        "too; `:undo 0` goes to the root; a jump to the current node does nothing",
        [{"op": ":undo", "n": 1}, {"op": ":undo", "n": 0}]
        + changes(2)
        + [{"op": ":undo", "n": 3}, {"op": ":undo", "n": 2}, {"op": ":undo", "n": 0}]
        + [{"op": ":undo", "n": 0}, {"op": ":undo", "n": 7}, {"op": ":undo", "n": 1}],
    ),
    (
        "golden.timeMovesByCountToTheEnds",
        "a count of 0 never moves; past either end a time move stops at the root or the newest "
        "node, across branches",
        changes(3)
        + [{"op": "u"}, {"op": "u"}]
        + changes(1, start=3)
        + [{"op": ":earlier", "n": 0}, {"op": ":later", "n": 0}, {"op": "g-", "count": 2}]
        + [{"op": ":later", "n": 100}, {"op": "g-", "count": 9}, {"op": "g-"}, {"op": "g+", "count": 3}]
        + [{"op": ":later", "n": 1}, {"op": ":earlier", "n": 100}, {"op": "g+"}],
    ),
]


def record(vim, sequence_id, ops, note=None):
    steps = vim.run(ops)
    recorded = []
    for op, step in zip(ops, steps):
        entry = dict(op)
        entry["text"] = step["text"]
        entry["node"] = step["node"]
        entry["last"] = step["last"]
        if "error" in step:
            entry["error"] = step["error"]
        recorded.append(entry)
    sequence = {"id": sequence_id}
    if note:
        sequence["note"] = note
    sequence["steps"] = recorded
    return sequence


def write(path, vim, sequences, seeds):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    compact = {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": False}
    with open(path, "w") as out:
        out.write("{\n")
        header = {
            "format": FORMAT_VERSION,
            "vim": vim.version,
            "command": "vim -Nu NONE -i NONE -n -es (Scripts/record-vim-oracle.py)",
            "random": {
                "sequences": len(seeds),
                "seeds": f"{seeds.start}..{seeds.stop - 1}",
                "ops": [MIN_OPS, MAX_OPS],
            },
        }
        for key, value in header.items():
            out.write(f"{json.dumps(key)}:{json.dumps(value, **compact)},\n")
        out.write('"sequences":[\n')
        for index, sequence in enumerate(sequences):
            out.write(json.dumps(sequence, **compact))
            out.write(",\n" if index + 1 < len(sequences) else "\n")
        out.write("]\n}\n")


def parse_ops(text):
    """Commands written by hand, e.g. `c c u c g- :undo=2 :later=3 2u`, for --try."""
    ops = []
    changes_made = 0
    for token in text.split():
        if token == "c":
            ops.append({"op": "change", "word": word(changes_made)})
            changes_made += 1
            continue
        name, _, argument = token.partition("=")
        digits = len(name) - len(name.lstrip("0123456789"))
        count = int(name[:digits]) if digits else 1
        name = name[digits:]
        op = {"op": name}
        if argument:
            op["n"] = int(argument)
        if count > 1:
            op["count"] = count
        ops.append(op)
    return ops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=DEFAULT_SEQUENCES)
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the seed of the first random sequence (other seeds explore beyond the fixture)",
    )
    parser.add_argument("--vim", default="/usr/bin/vim")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument(
        "--try",
        dest="attempt",
        metavar="COMMANDS",
        help="record one hand-written sequence (e.g. 'c c u c g- :undo=2') and print it; "
        "writes no fixture",
    )
    args = parser.parse_args()
    vim = Vim(args.vim)
    if args.attempt:
        sequence = record(vim, "try", parse_ops(args.attempt))
        for step in sequence["steps"]:
            print(json.dumps(step, ensure_ascii=False))
        return
    sequences = [record(vim, sequence_id, ops, note) for sequence_id, note, ops in GOLDEN]
    seeds = range(args.first_seed, args.first_seed + args.sequences)
    sequences += [record(vim, f"random.{seed}", random_ops(seed)) for seed in seeds]
    write(os.path.abspath(args.out), vim, sequences, seeds)
    steps = sum(len(sequence["steps"]) for sequence in sequences)
    print(f"{len(sequences)} sequences, {steps} steps: {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
