#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# What the libFuzzer scripts share (sourced by Scripts/fuzz-history-archive.sh and
# Scripts/fuzz-history-journal.sh, from the package's root): building a target under
# `swiftc -sanitize=fuzzer,address` against the library's two modules with code, and running it.
#
# The library's code is in two modules (ActionStackCore, and ActionStackArchive, which imports it;
# the umbrella ActionStack only re-exports them and is not needed here), built here as the package
# builds them: each module with whole-module optimization into one object and its .swiftmodule, in
# .build/fuzz, shared by every target; then each target, a module of its own that imports both,
# linked with the two objects. A module is rebuilt only when one of its sources is newer than its
# object, and a target only when its sources or the objects are newer than its binary.

fuzz_build=.build/fuzz
fuzz_modules=$fuzz_build/modules
mkdir -p "$fuzz_modules" "$fuzz_build/artifacts"

# The library's own settings (Package.swift): Swift 6 mode, ExistentialAny, InternalImportsByDefault;
# a package name, for the `package` hooks that ActionStackArchive reaches in ActionStackCore (and
# the targets in both).
fuzz_flags=(-sanitize=fuzzer,address -parse-as-library -package-name ActionStack -swift-version 6
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault -O -g)

# The .swift files under a folder, sorted, into the array named by the second argument.
fuzz_sources() {
  local -n into=$2
  into=()
  while IFS= read -r file; do into+=("$file"); done < <(find "$1" -name '*.swift' | sort)
}

# Builds one library module of the package, when a source is newer than its object: its sources
# into $fuzz_build/<module>.o and its interface into $fuzz_modules/<module>.swiftmodule.
fuzz_build_module() {
  local module=$1
  local object=$fuzz_build/$module.o
  if [ -f "$object" ] && [ -f "$fuzz_modules/$module.swiftmodule" ] \
    && [ -z "$(find "Sources/$module" -name '*.swift' -newer "$object")" ]; then
    return
  fi
  local files
  fuzz_sources "Sources/$module" files
  echo "building $module (${#files[@]} files)" >&2
  swiftc "${fuzz_flags[@]}" -module-name "$module" -I "$fuzz_modules" -wmo -c "${files[@]}" \
    -emit-module -emit-module-path "$fuzz_modules/$module.swiftmodule" -o "$object"
}

# Builds the target in Fuzz/<name>, with the checks both targets share (Fuzz/Shared), into the
# binary, with the library's modules, when it is stale.
fuzz_build_target() {
  local name=$1 binary=$2
  fuzz_build_module ActionStackCore
  fuzz_build_module ActionStackArchive
  local objects=("$fuzz_build/ActionStackCore.o" "$fuzz_build/ActionStackArchive.o")
  if [ -x "$binary" ] && [ -z "$(find "Fuzz/$name" Fuzz/Shared "${objects[@]}" -newer "$binary")" ]; then
    return
  fi
  local files shared
  fuzz_sources "Fuzz/$name" files
  fuzz_sources Fuzz/Shared shared
  files+=("${shared[@]}")
  echo "building $binary" >&2
  swiftc "${fuzz_flags[@]}" -module-name "$name" -I "$fuzz_modules" "${files[@]}" "${objects[@]}" -o "$binary"
}

# Runs a built target for some seconds over its work corpus ($fuzz_build/<corpus>-corpus, which
# keeps what earlier runs found) and its committed seeds (Fuzz/corpus/<corpus>, never modified),
# with its dictionary (Fuzz/<corpus>.dict). Extra arguments go to libFuzzer (after the defaults,
# so they win).
#
# Leak detection is off, as in CI's sanitized tests: the Swift runtime's caches and weak-reference
# side tables read as leaks to LeakSanitizer. Swift's own backtracer is off: libFuzzer and
# AddressSanitizer print the crash's stack, and the backtracer, started from a crash under
# AddressSanitizer, was seen to hang, holding the output's pipe open past the run's end.
fuzz_run() {
  local binary=$1 corpus=$2 seconds=$3 work=$4
  shift 4
  mkdir -p "$work"
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
  export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
  "$binary" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
    -dict="Fuzz/$corpus.dict" -print_final_stats=1 -artifact_prefix="$fuzz_build/artifacts/" "$@" \
    "$work" "Fuzz/corpus/$corpus"
}
