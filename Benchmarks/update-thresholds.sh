#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Writes Benchmarks/Thresholds/ anew from one run of the package-benchmark suite
# (Benchmarks/ActionStackMetrics): for each benchmark, the p90 of its counts per iteration
# (mallocCountTotal, objectAllocCount, retainCount, releaseCount; an iteration is 1,000 steps).
# Wall clock is left out of the files: it depends on the machine and its load, so it is printed by
# `swift package benchmark`, never checked.
#
# Run it after a change that moves the counts on purpose (the library's rewrite, a new toolchain),
# look at `git diff Benchmarks/Thresholds`, and commit the files. CI checks them with
# Benchmarks/check-thresholds.sh. Extra arguments go to `swift package benchmark`, e.g.
# `--filter S1-.*` (only the benchmarks named are rewritten then).
set -euo pipefail
cd "$(dirname "$0")"

if [ $# -eq 0 ]; then
  # A full update: start empty, so that a benchmark that no longer exists loses its file.
  rm -rf Thresholds
fi
swift package --allow-writing-to-package-directory benchmark thresholds update --no-progress "$@"

python3 - <<'PY'
import glob, json
counts = ("mallocCountTotal", "objectAllocCount", "retainCount", "releaseCount")
for path in sorted(glob.glob("Thresholds/*.p90.json")):
    with open(path) as f:
        values = json.load(f)
    kept = {key: values[key] for key in counts if key in values}
    with open(path, "w") as f:
        json.dump(kept, f, indent=2, sort_keys=True)
        f.write("\n")
    per_step = ", ".join(f"{key} {value / 1000:g}" for key, value in kept.items())
    print(f"{path}: per step {per_step}")
PY
echo "Thresholds written. Review them with 'git diff Benchmarks/Thresholds' and commit them."
