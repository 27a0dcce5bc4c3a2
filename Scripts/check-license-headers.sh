#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Checks that every tracked .swift, .h and .modulemap file starts with the project's license
# header as `//` comments (after the `// swift-tools-version:` line in a manifest), and every
# tracked .sh/.py script has the same header as `#` comments after its shebang. Lists each file
# that does not, and fails if any.
set -euo pipefail
cd "$(dirname "$0")/.."

header='// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0'
lines=$(printf '%s\n' "$header" | wc -l)
script_header=$(printf '%s\n' "$header" | sed 's|^//|#|')

missing=()
while IFS= read -r -d '' file; do
  case "$file" in
    *.swift)
      if head -n 1 "$file" | grep -q '^// swift-tools-version:'; then
        actual=$(sed -n "2,$((lines + 1))p" "$file")
      else
        actual=$(head -n "$lines" "$file")
      fi
      [ "$actual" = "$header" ] || missing+=("$file")
      ;;
    *.h | *.modulemap)
      [ "$(head -n "$lines" "$file")" = "$header" ] || missing+=("$file")
      ;;
    *.sh | *.py)
      if head -n 1 "$file" | grep -q '^#!'; then
        actual=$(sed -n "2,$((lines + 1))p" "$file")
      else
        actual=$(head -n "$lines" "$file")
      fi
      [ "$actual" = "$script_header" ] || missing+=("$file")
      ;;
  esac
done < <(git ls-files -z -- '*.swift' '*.h' '*.modulemap' '*.sh' '*.py' .ci/run)

# .ci/run is a bash script without an extension.
if [ "$(sed -n "2,$((lines + 1))p" .ci/run)" != "$script_header" ]; then
  missing+=(.ci/run)
fi

if [ "${#missing[@]}" -ne 0 ]; then
  echo "error: these files do not start with the license header (see CONTRIBUTING.md):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "license headers: every tracked .swift, .h, .modulemap, .sh and .py file has one"
