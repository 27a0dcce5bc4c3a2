#!/usr/bin/env bash
# Runs ActionStack's benchmarks and GNUstep's NSUndoManager benchmark (../shared/peers/gnustep)
# on this machine in one go and prints the figures side by side.
#
# Usage: Benchmarks/compare-gnustep.sh [N=1000000]
# Needs root or sudo the first time (apt-get install of GNUstep's packages, by the peer's script).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
N=${1:-1000000}
peer=${GNUSTEP_PEER:-$top/../shared/peers/gnustep}
[ -d "$peer" ] || { echo "compare-gnustep: no GNUstep peer at $peer (set GNUSTEP_PEER)" >&2; exit 1; }

"$peer/install.sh" >/dev/null
# The peer folder may be read-only: build a copy.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$peer"/*.m "$peer"/build.sh "$work/"
(cd "$work" && ./build.sh >/dev/null)

echo "== GNUstep NSUndoManager (N=$N)"
gnu="$work/gnustep.txt"
for scenario in each each_sel single levels remove; do
  "$work/bin/undo_bench" "$N" "$scenario" | grep '^result' >> "$gnu"
done
echo "== ActionStack (N=$N)"
json="$work/actionstack.json"
swift run -c release --package-path "$top/Benchmarks" ActionStackBenchmarks -n "$N" --json "$json" | grep -v '^\['

python3 - "$gnu" "$json" "$N" <<'PY'
import json, sys
gnu, rss = {}, {}
for line in open(sys.argv[1]):
    fields = dict(f.split("=", 1) for f in line.split()[1:])
    gnu[(fields["scenario"], fields["phase"])] = float(fields["ns_per_op"])
    rss[fields["scenario"]] = max(rss.get(fields["scenario"], 0), int(fields["peak_rss_kb"]))
n = int(sys.argv[3])
rows = {(r["scenario"], r["variant"]): r for r in json.load(open(sys.argv[2]))["rows"]}
def gn(s, *phases): return sum(gnu.get((s, p), float("nan")) for p in phases)
def ours(s, v, key="nsPerAction"): return rows[(s, v)][key]
table = [
    ("1: group+register, undo, redo (invocation) vs ours, notifications on",
     gn("each", "register_group_each", "undo_all", "redo_all"), ours("1 each", "notifications on")),
    ("1: same through selectors, vs ours, notifications on",
     gn("each_sel", "register_group_each", "undo_all", "redo_all"), ours("1 each", "notifications on")),
    ("1: same through selectors, vs ours, notifications off",
     gn("each_sel", "register_group_each", "undo_all", "redo_all"), ours("1 each", "notifications off")),
    ("2: N in one group, one undo, one redo (per action)",
     gn("single", "register_in_one_group", "single_undo_of_N_actions", "single_redo_of_N_actions"),
     ours("2 single", "notifications on")),
    ("3: levelsOfUndo = 100, per group", gn("levels", "register_group_each_levels100"),
     ours("3 levels100", "notifications on")),
    ("4: removeAllActions(withTarget:), per stored action", gnu.get(("remove", "removeAllActionsWithTarget_1_of_1000"), float("nan")),
     ours("4 remove", "1 of 1000 targets")),
    ("6: peak resident bytes per stored action (each)", rss.get("each", 0) * 1024 / n,
     ours("6 memory", "one action per group", "bytesPerAction")),
]
print()
print(f"{'scenario':72} {'GNUstep':>10} {'ActionStack':>12} {'GNUstep / ActionStack':>22}")
for name, g, a in table:
    print(f"{name:72} {g:10.1f} {a:12.1f} {g / a:21.1f}x")
print("(ns per action, except bytes for 6; scenario 5, automatic grouping, has no GNUstep counterpart)")
PY
