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
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=${1:-}
if [ -z "$baseline" ]; then
  if ! baseline=$(git describe --tags --abbrev=0 2>/dev/null); then
    echo "api-breaking: no release tag yet, so no baseline to compare the API with; skipped"
    exit 0
  fi
fi
echo "api-breaking: comparing the ActionStack library's API with $baseline"
swift package --scratch-path .build-api diagnose-api-breaking-changes "$baseline" --products ActionStack
