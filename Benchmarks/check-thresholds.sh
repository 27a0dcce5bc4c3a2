#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Runs the package-benchmark suite (Benchmarks/ActionStackMetrics) and checks its counts against
# the committed thresholds in Benchmarks/Thresholds/ (CI runs this). Counts are deterministic for
# a build, so this is a real check on a noisy machine; each count may move by 5% (see the suite).
#
# Fails when a count is more than 5% above its threshold (a regression) and also when it is more
# than 5% below (an improvement): then run Benchmarks/update-thresholds.sh and commit the lower
# thresholds, so that a later regression back to the old count is caught.
set -euo pipefail
cd "$(dirname "$0")"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# pipefail: the status is the check's, not tee's.
swift package benchmark thresholds check --no-progress "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo >&2
  if grep -q "benchmarkThresholdImprovement" "$log"; then
    echo "check-thresholds: counts went DOWN by more than 5%. Good: run Benchmarks/update-thresholds.sh" >&2
    echo "and commit Benchmarks/Thresholds, so the lower counts become the ones checked." >&2
  elif grep -q "WORSE than the defined thresholds" "$log"; then
    echo "check-thresholds: counts went UP by more than 5% (tables above). If that is intended, run" >&2
    echo "Benchmarks/update-thresholds.sh and commit Benchmarks/Thresholds with the reason." >&2
  else
    echo "check-thresholds: the check did not run through (see above)." >&2
  fi
fi
exit "$status"
