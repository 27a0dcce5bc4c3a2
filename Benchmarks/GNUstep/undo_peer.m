// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/*
 * The GNUstep peer of ActionStack's benchmarks: the same scenarios run on GNUstep base's
 * NSUndoManager (Objective-C, GCC's runtime: no blocks and no ARC, so targets register through
 * prepareWithInvocationTarget: or registerUndoWithTarget:selector:object:, and memory is managed
 * by hand with autorelease pools).
 *
 *   undo_peer SCENARIO N [REPETITIONS]
 *
 * SCENARIO (each mirrors a scenario of Benchmarks/Sources/Workloads):
 *   each        1: N one-action groups (invocation path), N undos, N redos; ns per step
 *   each_sel    1: the same through registerUndoWithTarget:selector:object:; ns per step
 *   single      2: N actions in one group, one undo, one redo; ns per action
 *   levels      3: levelsOfUndo = 100, N one-action groups, then every step released; ns per group
 *   remove      4: N one-action groups over 1000 targets, removeAllActionsWithTarget: of one;
 *                  ns per stored action (the removal alone)
 *   memory      6: peak resident bytes per stored action of N one-action groups (invocation path)
 *   memory_sel  6: the same through selectors
 *
 * Action i adds i to a counter and registers its inverse, which registers its own inverse when
 * undone, so every phase ends at a value known in closed form; a wrong value stops the program
 * with exit status 1 (a broken run measures nothing). Output, one line:
 *   peer scenario=each n=1000000 repetitions=3 median=1234.5 unit=ns/step samples=... check=ok
 * The median is over REPETITIONS runs (default 3), each on a new NSUndoManager.
 */
#import <Foundation/Foundation.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what, long got, long want)
{
  fprintf(stderr, "CHECK FAILED: %s: %ld, want %ld\n", what, got, want);
  exit(1);
}

static long triangle(long n) { return n * (n + 1) / 2; }

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Reads a "Name:  1234 kB" field of /proc/self/status, in bytes. */
static long status_bytes(const char *field)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = 0;
  size_t length = strlen(field);
  if (f == NULL) return 0;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, field, length) == 0) {
      kb = strtol(line + length, NULL, 10);
      break;
    }
  }
  fclose(f);
  return kb * 1024;
}

/* The target: a counter whose changes register their inverses on its undo manager. */
@interface Counter : NSObject
{
@public
  long value;
  NSUndoManager *manager; /* not retained: the manager retains its targets */
}
- (id) initWithManager: (NSUndoManager *)aManager;
- (void) add: (long)amount;               /* the invocation path */
- (void) addNumber: (NSNumber *)amount;   /* the selector path */
@end

@implementation Counter
- (id) initWithManager: (NSUndoManager *)aManager
{
  if ((self = [super init]) != nil) {
    manager = aManager;
  }
  return self;
}

- (void) add: (long)amount
{
  value += amount;
  [[manager prepareWithInvocationTarget: self] add: -amount];
}

- (void) addNumber: (NSNumber *)amount
{
  long k = [amount longValue];
  value += k;
  [manager registerUndoWithTarget: self
                         selector: @selector(addNumber:)
                           object: [NSNumber numberWithLong: -k]];
}
@end

/* A manager with explicit grouping, as ActionStack's scenarios use. */
static NSUndoManager *new_manager(void)
{
  NSUndoManager *manager = [NSUndoManager new];
  [manager setGroupsByEvent: NO];
  return manager;
}

/* Autorelease pools are drained every this many operations inside timed loops, as a program
 * that handles one event at a time would. */
enum { POOL_EVERY = 1000 };

static void register_groups(NSUndoManager *manager, Counter **counters, long count, long n, BOOL selectors)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  long i;
  for (i = 1; i <= n; i++) {
    Counter *counter = counters[i % count];
    [manager beginUndoGrouping];
    if (selectors) {
      [counter addNumber: [NSNumber numberWithLong: i]];
    } else {
      [counter add: i];
    }
    [manager endUndoGrouping];
    if (i % POOL_EVERY == 0) {
      [pool drain];
      pool = [NSAutoreleasePool new];
    }
  }
  [pool drain];
}

static void repeat_undo(NSUndoManager *manager, long n, BOOL redo)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  long i;
  for (i = 1; i <= n; i++) {
    if (redo) {
      [manager redo];
    } else {
      [manager undo];
    }
    if (i % POOL_EVERY == 0) {
      [pool drain];
      pool = [NSAutoreleasePool new];
    }
  }
  [pool drain];
}

/* Scenario 1: ns per step of group + register, undo, redo. */
static double run_each(long n, BOOL selectors)
{
  NSUndoManager *manager = new_manager();
  Counter *counter = [[Counter alloc] initWithManager: manager];
  double start, ns;

  start = now_ns();
  register_groups(manager, &counter, 1, n, selectors);
  if (counter->value != triangle(n)) fail("each: after register", counter->value, triangle(n));
  repeat_undo(manager, n, NO);
  if (counter->value != 0) fail("each: after undo", counter->value, 0);
  repeat_undo(manager, n, YES);
  ns = now_ns() - start;
  if (counter->value != triangle(n)) fail("each: after redo", counter->value, triangle(n));

  [manager removeAllActions];
  [manager release];
  [counter release];
  return ns / (double)n;
}

/* Scenario 2: ns per action of N actions in one group, one undo, one redo. */
static double run_single(long n)
{
  NSUndoManager *manager = new_manager();
  Counter *counter = [[Counter alloc] initWithManager: manager];
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  double start, ns;
  long i;

  start = now_ns();
  [manager beginUndoGrouping];
  for (i = 1; i <= n; i++) {
    [counter add: i];
    if (i % POOL_EVERY == 0) {
      [pool drain];
      pool = [NSAutoreleasePool new];
    }
  }
  [manager endUndoGrouping];
  [manager undo];
  if (counter->value != 0) fail("single: after undo", counter->value, 0);
  [manager redo];
  [pool drain];
  ns = now_ns() - start;
  if (counter->value != triangle(n)) fail("single: after redo", counter->value, triangle(n));

  [manager removeAllActions];
  [manager release];
  [counter release];
  return ns / (double)n;
}

/* Scenario 3: ns per group with levelsOfUndo = 100, the release of what is kept included (as in
 * ActionStack's run); the steps kept are checked by undoing them after the timing. */
static double run_levels(long n)
{
  NSUndoManager *manager = new_manager();
  Counter *counter = [[Counter alloc] initWithManager: manager];
  long kept = n < 100 ? n : 100;
  long undone = 0;
  double start, ns;

  [manager setLevelsOfUndo: 100];
  start = now_ns();
  register_groups(manager, &counter, 1, n, NO);
  ns = now_ns() - start;
  if (counter->value != triangle(n)) fail("levels: after register", counter->value, triangle(n));

  /* Untimed: the newest 100 steps are there, and no more. */
  {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    while ([manager canUndo]) {
      [manager undo];
      undone++;
    }
    [pool drain];
  }
  if (undone != kept) fail("levels: steps kept", undone, kept);
  if (counter->value != triangle(n - kept)) fail("levels: after undoing them", counter->value, triangle(n - kept));

  start = now_ns();
  [manager removeAllActions];
  ns += now_ns() - start;
  [manager release];
  [counter release];
  return ns / (double)n;
}

/* Scenario 4: ns per stored action of removeAllActionsWithTarget: of 1 target of 1000. */
static double run_remove(long n)
{
  enum { TARGETS = 1000 };
  NSUndoManager *manager = new_manager();
  Counter *counters[TARGETS];
  long i, left = 0, removed = 0;
  double start, ns;

  for (i = 0; i < TARGETS; i++) counters[i] = [[Counter alloc] initWithManager: manager];
  register_groups(manager, counters, TARGETS, n, NO);

  start = now_ns();
  [manager removeAllActionsWithTarget: counters[0]];
  ns = now_ns() - start;

  /* Untimed: undo what remains; the removed target keeps its amounts, the others return to 0. */
  {
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    while ([manager canUndo]) [manager undo];
    [pool drain];
  }
  for (i = TARGETS; i <= n; i += TARGETS) removed += i;
  for (i = 0; i < TARGETS; i++) left += counters[i]->value;
  if (counters[0]->value != removed) fail("remove: removed target", counters[0]->value, removed);
  if (left != removed) fail("remove: all targets", left, removed);

  [manager removeAllActions];
  [manager release];
  for (i = 0; i < TARGETS; i++) [counters[i] release];
  return ns / (double)n;
}

/* Scenario 6: peak resident bytes per stored action of N one-action groups. */
static double run_memory(long n, BOOL selectors)
{
  NSUndoManager *manager = new_manager();
  Counter *counter = [[Counter alloc] initWithManager: manager];
  long before = status_bytes("VmRSS:");
  double bytes;

  register_groups(manager, &counter, 1, n, selectors);
  bytes = (double)(status_bytes("VmHWM:") - before) / (double)n;
  if (counter->value != triangle(n)) fail("memory: after register", counter->value, triangle(n));
  [manager removeAllActions];
  [manager release];
  [counter release];
  return bytes;
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

int main(int argc, char **argv)
{
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  const char *scenario;
  const char *unit = "ns/step";
  long n;
  int repetitions, r;
  double samples[64], median;

  if (argc < 3 || (n = strtol(argv[2], NULL, 10)) < 1000) {
    fprintf(stderr, "usage: undo_peer each|each_sel|single|levels|remove|memory|memory_sel N [REPETITIONS]"
                    " (N >= 1000)\n");
    return 2;
  }
  scenario = argv[1];
  repetitions = argc > 3 ? atoi(argv[3]) : 3;
  if (repetitions < 1) repetitions = 1;
  if (repetitions > 64) repetitions = 64;
  if (strncmp(scenario, "memory", 6) == 0) repetitions = 1; /* a peak needs a fresh process */

  for (r = 0; r < repetitions; r++) {
    if (strcmp(scenario, "each") == 0) {
      samples[r] = run_each(n, NO);
    } else if (strcmp(scenario, "each_sel") == 0) {
      samples[r] = run_each(n, YES);
    } else if (strcmp(scenario, "single") == 0) {
      samples[r] = run_single(n);
      unit = "ns/action";
    } else if (strcmp(scenario, "levels") == 0) {
      samples[r] = run_levels(n);
      unit = "ns/group";
    } else if (strcmp(scenario, "remove") == 0) {
      samples[r] = run_remove(n);
      unit = "ns/stored-action";
    } else if (strcmp(scenario, "memory") == 0 || strcmp(scenario, "memory_sel") == 0) {
      samples[r] = run_memory(n, strcmp(scenario, "memory_sel") == 0);
      unit = "bytes/stored-action";
    } else {
      fprintf(stderr, "undo_peer: unknown scenario %s\n", scenario);
      return 2;
    }
  }

  printf("peer scenario=%s n=%ld repetitions=%d", scenario, n, repetitions);
  printf(" samples=");
  for (r = 0; r < repetitions; r++) printf(r == 0 ? "%.1f" : ",%.1f", samples[r]);
  qsort(samples, (size_t)repetitions, sizeof samples[0], compare_doubles);
  median = repetitions % 2 == 1 ? samples[repetitions / 2]
                                : (samples[repetitions / 2 - 1] + samples[repetitions / 2]) / 2;
  printf(" median=%.1f unit=%s check=ok\n", median, unit);
  [pool drain];
  return 0;
}
