#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Runs GNUstep's NSUndoManager and ActionStack's benchmarks on this machine, in one go, and prints
# the figures side by side. Everything it needs is in this repository: the peer program is
# Benchmarks/GNUstep/undo_peer.m, built here with Debian's GNUstep packages, which
# Benchmarks/GNUstep/install.sh installs if they are missing (root or sudo, apt-get).
#
# Usage: Benchmarks/compare-gnustep.sh [N=1000000]
#   GNUSTEP_REPETITIONS=3   repetitions of each GNUstep scenario (median); ActionStack's are 5
#
# The peer is built into Benchmarks/.build-gnustep/ (ignored by git), and every output of the run
# (GNUstep's lines, ActionStack's table and JSON, the side-by-side table) is kept in
# Benchmarks/.build-gnustep/results-DATE-nN/, whose path is printed at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:-1000000}
repetitions=${GNUSTEP_REPETITIONS:-3}

"$here/GNUstep/install.sh"
peer=$("$here/GNUstep/build.sh" "$here/.build-gnustep")
results="$here/.build-gnustep/results-$(date +%Y%m%d-%H%M%S)-n$N"
mkdir -p "$results"
version=$(dpkg-query -W -f '${Version}' libgnustep-base-dev 2>/dev/null || echo unknown)

echo "== GNUstep base $version NSUndoManager (N=$N, median of $repetitions)"
for scenario in each each_sel single levels remove memory memory_sel; do
  "$peer" "$scenario" "$N" "$repetitions" | tee -a "$results/gnustep.txt"
done

echo
echo "== ActionStack (N=$N)"
swift build -c release --package-path "$here" --product ActionStackBenchmarks >/dev/null
"$(swift build -c release --package-path "$here" --show-bin-path)/ActionStackBenchmarks" -n "$N" \
  --json "$results/actionstack.json" | tee "$results/actionstack.txt"

python3 - "$results" "$version" <<'PY' | tee "$results/side-by-side.txt"
import json, sys

results, version = sys.argv[1], sys.argv[2]
gnustep = {}
for line in open(f"{results}/gnustep.txt"):
    fields = dict(field.split("=", 1) for field in line.split()[1:])
    gnustep[fields["scenario"]] = float(fields["median"])
report = json.load(open(f"{results}/actionstack.json"))
rows = {(row["scenario"], row["variant"]): row for row in report["rows"]}

def ours(scenario, variant, key="nsPerAction"):
    return rows[(scenario, variant)][key]

table = [
    ("1. group + register, undo, redo: prepareWithInvocationTarget: vs ours, notifications on",
     gnustep["each"], ours("1 each", "notifications on"), "ns", ">= 2x"),
    ("1. the same through registerUndoWithTarget:selector:object:, vs ours, notifications on",
     gnustep["each_sel"], ours("1 each", "notifications on"), "ns", ">= 1.5x"),
    ("1. the same through selectors, vs ours, notifications off",
     gnustep["each_sel"], ours("1 each", "notifications off"), "ns", ""),
    ("2. N actions in one group, one undo, one redo (per action), notifications on",
     gnustep["single"], ours("2 single", "notifications on"), "ns", ""),
    ("3. levelsOfUndo = 100 (per group), notifications on",
     gnustep["levels"], ours("3 levels100", "notifications on"), "ns", ""),
    ("4. removeAllActions(withTarget:), 1 of 1000 targets (per stored action)",
     gnustep["remove"], ours("4 remove", "1 of 1000 targets"), "ns", ">= 10x"),
    ("6. peak resident bytes per stored action (invocation path vs closures)",
     gnustep["memory"], ours("6 memory", "one action per group", "bytesPerAction"), "B", ">= 8x"),
    ("6. the same, GNUstep through selectors",
     gnustep["memory_sel"], ours("6 memory", "one action per group", "bytesPerAction"), "B", ""),
]
print()
print(f"GNUstep base {version} NSUndoManager beside ActionStack, N = {report['n']}, same machine, one go")
print("(GNUstep always posts its notifications; ns per step or action, bytes for 6)")
print(f"{'scenario':88} {'GNUstep':>10} {'ActionStack':>12} {'ActionStack is':>20}  target")
for name, theirs, own, unit, target in table:
    factor = theirs / own
    verdict = f"{factor:.1f}x {'faster' if unit == 'ns' else 'smaller'}"
    if target:
        wanted = float(target.split()[1].rstrip("x"))
        target = f"{target} {'met' if factor >= wanted else 'MISSED'}"
    print(f"{name:88} {theirs:10.1f} {own:12.1f} {verdict:>20}  {target}".rstrip())
print("(scenario 5, automatic grouping, and 7, many targets, have no GNUstep counterpart)")
PY
echo
echo "compare-gnustep: everything of this run is in $results"
