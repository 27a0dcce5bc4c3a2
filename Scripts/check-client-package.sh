#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Builds and runs Tests/ClientPackage, a client package whose own targets are named `board` and
# `BoardModel` and whose code spells ActionStack's types qualified (`ActionStack.TitleTemplates`).
# It fails if one of ActionStack's target names clashes with a client's, or a qualified name does
# not compile. The build goes to .build-client (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-client
swift build --package-path Tests/ClientPackage --scratch-path "$scratch" -Xswiftc -warnings-as-errors
output=$("$(swift build --package-path Tests/ClientPackage --scratch-path "$scratch" --show-bin-path)/board")
printf '%s\n' "$output"
expected=$'Annuler Saisie\nRétablir Saisie true true'
if [ "$output" != "$expected" ]; then
  echo "error: the client package printed something else; expected:" >&2
  printf '%s\n' "$expected" >&2
  exit 1
fi
core=$("$(swift build --package-path Tests/ClientPackage --scratch-path "$scratch" --show-bin-path)/core-only")
printf '%s\n' "$core"
if [ "$core" != "6 Undo Add 3 3" ]; then
  echo "error: the client of ActionStackCore alone printed something else; expected: 6 Undo Add 3 3" >&2
  exit 1
fi
mixed=$("$(swift build --package-path Tests/ClientPackage --scratch-path "$scratch" --show-bin-path)/mixed")
printf '%s\n' "$mixed"
if [ "$mixed" != "true true 1 1 Undo Add 1" ]; then
  echo "error: the client that mixes ActionStackCore and ActionStack printed something else; expected: true true 1 1 Undo Add 1" >&2
  exit 1
fi
echo "client package: builds beside ActionStack with targets named board and BoardModel, and runs; a target that links ActionStackCore alone saves and restores a history; a module of each product passes the other the same stack and saved history"
