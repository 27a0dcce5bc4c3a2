// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The system's SQLite (libsqlite3), for the to-do example. Install it with
// `apt-get install libsqlite3-dev` (Debian, Ubuntu) or `brew install sqlite` (macOS).
#include <sqlite3.h>
