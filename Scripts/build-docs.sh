#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Builds the DocC documentation offline with the toolchain's own docc, warnings as errors.
# Usage: Scripts/build-docs.sh [OUTPUT=.build-docs/ActionStack.doccarchive]
# Preview locally: docc preview Sources/ActionStack/ActionStack.docc \
#     --additional-symbol-graph-dir .build-docs/symbol-graphs   (then open the printed URL)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build-docs/ActionStack.doccarchive}
graphs=.build-docs/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --scratch-path .build-docs/build --target ActionStack >/dev/null
bin=$(swift build --scratch-path .build-docs/build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
swift symbolgraph-extract -module-name ActionStack -target "$triple" -I "$bin/Modules" -I "$bin" \
  -minimum-access-level public -output-dir "$graphs"
docc convert Sources/ActionStack/ActionStack.docc \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name ActionStack \
  --fallback-bundle-identifier org.actionstack.ActionStack \
  --output-path "$out" \
  --warnings-as-errors
echo "documentation: $out"
