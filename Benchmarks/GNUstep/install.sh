#!/usr/bin/env bash
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

# Installs what the GNUstep peer needs from Debian's packages, if it is not there yet: GCC's
# Objective-C compiler, gnustep-make and GNUstep base (Foundation, with NSUndoManager).
# Needs root or sudo the first time.
set -euo pipefail
packages=(gobjc gnustep-make libgnustep-base-dev gnustep-base-runtime)

if command -v gnustep-config >/dev/null 2>&1 && [ -e /usr/include/GNUstep/Foundation/NSUndoManager.h ] \
  && dpkg -s "${packages[@]}" >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install.sh: installing ${packages[*]} needs root or sudo" >&2
  exit 1
fi
echo "install.sh: installing ${packages[*]} (apt-get)" >&2
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
