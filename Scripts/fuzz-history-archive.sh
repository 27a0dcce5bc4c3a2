#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Coverage-guided fuzzing of the history archive's reader with libFuzzer, under AddressSanitizer.
#
# Usage: Scripts/fuzz-history-archive.sh [SECONDS=60] [extra libFuzzer flags...]
#
# Builds Fuzz/HistoryArchiveFuzzer and the library's two modules with code (ActionStackCore, then
# ActionStackArchive; the umbrella ActionStack only re-exports them) with `swiftc -sanitize=fuzzer,address` (rebuilt only when a source is newer
# than the binary), then runs it for SECONDS over the committed seeds (Fuzz/corpus/history-archive,
# never modified), with the format's words as a dictionary (Fuzz/history-archive.dict), and a work
# corpus in .build/fuzz/corpus that keeps what earlier runs found. Fails on a crash, a sanitizer
# report, a failed check of the target, a timeout or a memory limit; libFuzzer then writes the input
# to .build/fuzz/artifacts/ (replay it: .build/fuzz/history-archive-fuzzer <file>).
#
# The seeded mutation fuzzer in the tests (HistoryArchiveFuzzTests) checks the same properties
# without this toolchain feature; this one explores by coverage, for as long as it is given.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
build=.build/fuzz
binary=$build/history-archive-fuzzer
mkdir -p "$build/corpus" "$build/artifacts"

# The library's code is in two modules (ActionStackCore, and ActionStackArchive, which imports it;
# the umbrella ActionStack only re-exports them and is not needed here), built here
# as the package builds them: each module with whole-module optimization into one object and its
# .swiftmodule, then the fuzzer, a third module that imports both, linked with the two objects.
modules=$build/modules
mkdir -p "$modules"
inputs=(Sources/ActionStackCore Sources/ActionStackArchive Fuzz/HistoryArchiveFuzzer)

# The library's own settings (Package.swift): Swift 6 mode, ExistentialAny, InternalImportsByDefault;
# a package name, for the `package` hooks that ActionStackArchive reaches in ActionStackCore.
flags=(-sanitize=fuzzer,address -parse-as-library -package-name ActionStack -swift-version 6
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault -O -g)

# Builds one library module of the package: its sources into $build/<module>.o and its interface
# into $modules/<module>.swiftmodule.
build_module() {
  local module=$1
  local files=()
  while IFS= read -r file; do files+=("$file"); done < <(find "Sources/$module" -name '*.swift' | sort)
  echo "building $module (${#files[@]} files)" >&2
  swiftc "${flags[@]}" -module-name "$module" -I "$modules" -wmo -c "${files[@]}" \
    -emit-module -emit-module-path "$modules/$module.swiftmodule" -o "$build/$module.o"
}

if [ ! -x "$binary" ] || [ -n "$(find "${inputs[@]}" -name '*.swift' -newer "$binary")" ]; then
  build_module ActionStackCore
  build_module ActionStackArchive
  fuzzer=()
  while IFS= read -r file; do fuzzer+=("$file"); done < <(find Fuzz/HistoryArchiveFuzzer -name '*.swift' | sort)
  echo "building $binary" >&2
  swiftc "${flags[@]}" -module-name HistoryArchiveFuzzer -I "$modules" "${fuzzer[@]}" \
    "$build/ActionStackCore.o" "$build/ActionStackArchive.o" -o "$binary"
fi

# Leak detection is off, as in CI's sanitized tests: the Swift runtime's caches and weak-reference
# side tables read as leaks to LeakSanitizer.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
"$binary" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
  -dict=Fuzz/history-archive.dict -print_final_stats=1 -artifact_prefix="$build/artifacts/" "$@" \
  "$build/corpus" Fuzz/corpus/history-archive
