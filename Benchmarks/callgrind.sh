#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Instructions per step of the benchmark scenarios, counted by callgrind.
#
# Instruction counts do not depend on the load of the machine: the same binary gives the same count
# run after run, so a difference of a few percent is real, where wall clocks on a shared machine
# move by more than that. Each scenario runs twice under callgrind (`ActionStackBenchmarks
# --single-run SCENARIO COUNT`), at two counts; the difference divided by the difference of the
# counts is the cost of one step, with the program's start-up and set-up cancelled out.
#
# Usage: Benchmarks/callgrind.sh [SCENARIO ...]     (default: each single strong weak)
# Prints instructions per step and the ratio to the strong closure stack's (the issue's target for
# scenario 1: at most 3,500 instructions per step).
#   scenarios: each, each-notify, single, strong, weak, closures, remove (the removal pass alone,
#   per stored action: its set-up is measured apart and taken away); with a branching history
#   (historyShape = .tree): each-tree, single-tree, fork (a change that turns a one-step redo
#   stack into a branch, then an undo), jump (a jump(toNode:) along a path of 8, 100 targets);
#   command (group + registering a command, registerUndo(_:on:key:), of two Doubles; no undo or
#   redo), command-closure (the same change registering a closure with the same captures)
#   CALLGRIND_COUNTS="2000 12000" to change the two counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
read -r small large <<<"${CALLGRIND_COUNTS:-2000 12000}"
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(each single strong weak)

if ! command -v valgrind >/dev/null 2>&1; then
  echo "callgrind.sh: valgrind is not installed (Debian: apt-get install valgrind)" >&2
  exit 1
fi

swift build -c release --package-path "$here" --product ActionStackBenchmarks >&2
bin="$(swift build -c release --package-path "$here" --show-bin-path)/ActionStackBenchmarks"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# instructions SCENARIO COUNT: the instructions callgrind collected for the whole run.
instructions() {
  local log="$work/$1.$2.log"
  valgrind --tool=callgrind --callgrind-out-file="$work/$1.$2.out" "$bin" --single-run "$1" "$2" >"$log" 2>&1 || {
    cat "$log" >&2
    echo "callgrind.sh: '$1 $2' failed" >&2
    exit 1
  }
  sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log"
}

# The strong closure stack is the yardstick of the ratio column; measure it whatever was asked.
declare -A per_step
for scenario in strong "${scenarios[@]}"; do
  [ -z "${per_step[$scenario]:-}" ] || continue
  a=$(instructions "$scenario" "$small")
  b=$(instructions "$scenario" "$large")
  per_step[$scenario]=$(((b - a) / (large - small)))
  if [ "$scenario" = remove ]; then
    # The removal alone: take away the set-up (registering the actions, releasing them).
    a=$(instructions remove-setup "$small")
    b=$(instructions remove-setup "$large")
    per_step[$scenario]=$((per_step[$scenario] - (b - a) / (large - small)))
  fi
done
printf '%-16s %18s %22s\n' scenario "instructions/step" "/ strong closure stack"
for scenario in "${scenarios[@]}"; do
  ratio=$(python3 -c "print(f'{${per_step[$scenario]} / ${per_step[strong]}:.2f}x')")
  printf '%-16s %18s %22s\n' "$scenario" "${per_step[$scenario]}" "$ratio"
done
echo "(a step: each/each-notify = group + register, undo, redo; single = one action of a group, its"
echo " undo and redo; strong/weak = a closure stack's register, undo, redo; closures = register"
echo " + undo; remove = the removal pass, per stored action; *-tree = the same with historyShape = .tree;"
echo " fork = a change that forks + an undo; jump = one jump(toNode:) of 8 steps; command /"
echo " command-closure = group + register a command / the same closure, no undo or redo; remote /"
echo " remote-disabled = a peer's one-letter edit reported / made with registration disabled (1,000 steps;"
echo " -16k: 16,000 steps, for the flat cost of a report); remote-undo"
echo " = an edit, 10 remote changes and the undo; releasing what a step stored is included)"
