#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Builds the GNUstep peer (undo_peer.m) into OUT_DIR (default: Benchmarks/.build-gnustep), with
# the flags gnustep-config gives and warnings as errors. Prints the path of the program.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../.build-gnustep}
mkdir -p "$out"
# shellcheck disable=SC2046 # gnustep-config prints several flags, to be split
gcc $(gnustep-config --objc-flags) -Werror -o "$out/undo_peer" "$here/undo_peer.m" $(gnustep-config --base-libs)
# -MMD in the flags leaves a dependency file beside the program; it is of no use here.
rm -f "$out/undo_peer.d"
echo "$out/undo_peer"
