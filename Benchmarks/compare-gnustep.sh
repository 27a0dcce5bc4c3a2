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
for scenario in each each_sel remove; do
  "$work/bin/undo_bench" "$N" "$scenario" | grep '^result' >> "$gnu"
done
echo "== ActionStack (N=$N)"
json="$work/actionstack.json"
swift run -c release --package-path "$top/Benchmarks" ActionStackBenchmarks -n "$N" --json "$json" | grep -v '^\['

python3 - "$gnu" "$json" <<'PY'
import json, re, sys
gnu = {}
for line in open(sys.argv[1]):
    fields = dict(f.split("=", 1) for f in line.split()[1:])
    gnu[(fields["scenario"], fields["phase"])] = float(fields["ns_per_op"])
rows = {(r["scenario"], r["variant"]): r for r in json.load(open(sys.argv[2]))}
def gn(s, *phases): return sum(gnu.get((s, p), float("nan")) for p in phases)
each = gn("each", "register_group_each", "undo_all", "redo_all")
each_sel = gn("each_sel", "register_group_each", "undo_all", "redo_all")
remove = gnu.get(("remove", "removeAllActionsWithTarget_1_of_1000"), float("nan"))
ours_on = rows[("1 each", "notifications on")]["nsPerAction"]
ours_off = rows[("1 each", "notifications off")]["nsPerAction"]
ours_remove = rows[("4 remove", "1 of 1000 targets")]["nsPerAction"]
print()
print(f"{'scenario':44} {'GNUstep ns':>12} {'ActionStack ns':>15} {'GNUstep / ActionStack':>22}")
for name, g, a in [
    ("1: group+register, undo, redo (invocation)", each, ours_on),
    ("1: group+register, undo, redo (selector)", each_sel, ours_on),
    ("1: same, ActionStack notifications off", each_sel, ours_off),
    ("4: removeAllActions(withTarget:) per action", remove, ours_remove),
]:
    print(f"{name:44} {g:12.1f} {a:15.1f} {g / a:21.1f}x")
PY
