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
# ActionStackArchive; the umbrella ActionStack only re-exports them) with
# `swiftc -sanitize=fuzzer,address` (Scripts/fuzz-common.sh: each rebuilt only when a source is
# newer than what was built from it), then runs it for SECONDS over the committed seeds
# (Fuzz/corpus/history-archive, never modified), with the format's words as a dictionary
# (Fuzz/history-archive.dict), and a work corpus in .build/fuzz/corpus that keeps what earlier runs
# found. Fails on a crash, a sanitizer
# report, a failed check of the target, a timeout or a memory limit; libFuzzer then writes the input
# to .build/fuzz/artifacts/ (replay it: .build/fuzz/history-archive-fuzzer <file>).
#
# The seeded mutation fuzzer in the tests (HistoryArchiveFuzzTests) checks the same properties
# without this toolchain feature; this one explores by coverage, for as long as it is given.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
source Scripts/fuzz-common.sh
fuzz_build_target HistoryArchiveFuzzer "$fuzz_build/history-archive-fuzzer"
# The work corpus keeps the folder it had before the journal's target came (.build/fuzz/corpus).
fuzz_run "$fuzz_build/history-archive-fuzzer" history-archive "$seconds" "$fuzz_build/corpus" "$@"
