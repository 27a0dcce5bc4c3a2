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
# -emit-extension-block-symbols: members of extensions of other modules' types get pages too.
# -experimental-allowed-reexported-modules: the umbrella module ActionStack only re-exports
# ActionStackCore and ActionStackArchive (Sources/ActionStack/Exports.swift); with this flag their
# symbols are extracted as the umbrella's own, so the documentation keeps the module name
# `ActionStack` and every ``ActionStack/...`` link.
swift symbolgraph-extract -module-name ActionStack -target "$triple" -I "$bin/Modules" -I "$bin" \
  -minimum-access-level public -emit-extension-block-symbols \
  -experimental-allowed-reexported-modules=ActionStackCore,ActionStackArchive -output-dir "$graphs"
docc convert Sources/ActionStack/ActionStack.docc \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name ActionStack \
  --fallback-bundle-identifier org.actionstack.ActionStack \
  --output-path "$out" \
  --warnings-as-errors

# Members that extend another module's types (the eight `NSNotification.Name.NSUndoManager…`
# constants extend Foundation's type) have pages only with -emit-extension-block-symbols above;
# without it they are silently left out. Check that their pages are there.
pages="$out/data/documentation/actionstack/foundation/nsnotification/name"
missing=0
for name in checkpoint didopenundogroup willcloseundogroup didcloseundogroup willundochange \
  didundochange willredochange didredochange; do
  if [ ! -f "$pages/nsundomanager$name.json" ]; then
    echo "error: no documentation page for NSNotification.Name.NSUndoManager… ($name)" >&2
    missing=1
  fi
done
[ -f "$out/data/documentation/actionstack/nsundomanagergroupisdiscardablekey.json" ] || {
  echo "error: no documentation page for NSUndoManagerGroupIsDiscardableKey" >&2
  missing=1
}
[ "$missing" -eq 0 ]
echo "documentation: $out"
