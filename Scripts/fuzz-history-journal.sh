#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Coverage-guided fuzzing of the history journal (its file's reader, appends after damage, and the
# replay of a recorder's records) with libFuzzer, under AddressSanitizer.
#
# Usage: Scripts/fuzz-history-journal.sh [SECONDS=60] [extra libFuzzer flags...]
#        Scripts/fuzz-history-journal.sh --write-seeds   (remakes Fuzz/corpus/history-journal)
#
# Builds Fuzz/HistoryJournalFuzzer with the library's modules as Scripts/fuzz-history-archive.sh
# does (Scripts/fuzz-common.sh, which both share), then runs it for SECONDS over the committed seeds
# (Fuzz/corpus/history-journal, never modified by a run: real recorders' journals, as files and as
# their payloads joined by 0xFF bytes), with the record format's words as a dictionary
# (Fuzz/history-journal.dict), and a work corpus in .build/fuzz/history-journal-corpus that keeps
# what earlier runs found. Each input is checked as a journal's file and as record payloads appended
# after a real snapshot (see the target's comment). Fails on a crash, a sanitizer report, a failed
# check of the target, a timeout or a memory limit; libFuzzer then writes the input to
# .build/fuzz/artifacts/ (replay it: .build/fuzz/history-journal-fuzzer <file>).
set -euo pipefail
cd "$(dirname "$0")/.."

source Scripts/fuzz-common.sh
binary=$fuzz_build/history-journal-fuzzer
fuzz_build_target HistoryJournalFuzzer "$binary"

if [ "${1:-}" = --write-seeds ]; then
  rm -rf Fuzz/corpus/history-journal
  ASAN_OPTIONS=detect_leaks=0 HISTORY_JOURNAL_FUZZER_SEEDS=Fuzz/corpus/history-journal "$binary"
  exit
fi

seconds=${1:-60}
shift || true
fuzz_run "$binary" history-journal "$seconds" "$fuzz_build/history-journal-corpus" "$@"
