#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Compares the public API of the ActionStack library with the last release: fails, listing each
# change, if one would break a client (a removed or changed declaration). Before 1.0 a minor
# release may break the API, but then the CHANGELOG says how; this check makes sure it is noticed.
# Usage: Scripts/check-api-breaking.sh [BASELINE]   (a tag, branch or commit; default: the newest
# tag reachable from HEAD). With no tag and no BASELINE there is nothing to compare with, and the
# script says so and succeeds.
#
# It first checks the policy for public enums (CONTRIBUTING.md, "Public enums"), with or without a
# baseline: every public enum is frozen, marked `@frozen` and saying "Frozen:" in its doc comment,
# and a set of values that will grow is a struct with static members instead. The comparison then
# keeps the decision: it flags a case added to an enum (a client's exhaustive `switch` breaks),
# and not a static member added to a struct.
set -euo pipefail
cd "$(dirname "$0")/.."

# A public enum without the frozen decision: its line, and what is missing.
undecided=$(find Sources -name '*.swift' -print0 | sort -z | xargs -0 awk '
  FNR == 1 { doc = ""; attributes = "" }
  /^[[:space:]]*\/\/\// { doc = doc $0 "\n"; next }
  /^[[:space:]]*@[A-Za-z]+[[:space:]]*$/ { attributes = attributes $0; next }
  /^[[:space:]]*(@[A-Za-z]+[[:space:]]+)*(public|open)[[:space:]]+(indirect[[:space:]]+)?enum[[:space:]]/ {
    line = attributes " " $0
    if (line !~ /@frozen/) print FILENAME ":" FNR ": public enum not marked @frozen: " $0
    if (doc !~ /Frozen:/) print FILENAME ":" FNR ": public enum without \"Frozen:\" in its doc comment: " $0
  }
  { doc = ""; attributes = "" }
')
if [ -n "$undecided" ]; then
  echo "$undecided"
  echo "api-breaking: a public enum that may gain a case breaks clients' switches; make it a struct with static"
  echo "members (CONTRIBUTING.md, \"Public enums\"), or mark it @frozen and say why under \"Frozen:\"."
  exit 1
fi
echo "api-breaking: every public enum is frozen"

baseline=${1:-}
if [ -z "$baseline" ]; then
  if ! baseline=$(git describe --tags --abbrev=0 2>/dev/null); then
    echo "api-breaking: no release tag yet, so no baseline to compare the API with; skipped"
    exit 0
  fi
fi
echo "api-breaking: comparing the ActionStack library's API with $baseline"
swift package --scratch-path .build-api diagnose-api-breaking-changes "$baseline" --products ActionStack
