// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The bytes malloc holds for the program, for the tree table's memory rows. Swift's Glibc module
// does not import <malloc.h>, so it is read here.
#include <stddef.h>

#if defined(__APPLE__)
#include <malloc/malloc.h>
#elif defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif

/// Bytes in use in malloc's heap: glibc's mallinfo2 (arena bytes in use plus mmapped chunks, chunk
/// headers and rounding included), or the default zone's size in use on Apple platforms; 0 where
/// neither is available.
static inline size_t actionstack_heap_bytes_in_use(void) {
#if defined(__APPLE__)
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
