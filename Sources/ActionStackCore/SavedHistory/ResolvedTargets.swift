// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The objects a restore's resolver gave, by target key: the one place a restore holds them.
///
/// The resolver is asked once per key. While the restore decides what it keeps, it holds every
/// object strongly, so that none goes away under the decision. A stack holds its targets weakly,
/// so before the restore builds anything it lets go of them once (``letGo()``): an object that
/// nobody but the restore kept alive (a resolver that made a new object and kept it nowhere) is
/// freed then, and its key counts as released. When a step the restore keeps names a released key,
/// the restore decides again, cutting the history at the first step that names one, as at a key
/// that does not resolve (a released key that only steps already cut name changes nothing), so that it
/// never builds a step whose target is already gone (a hole that undo would skip) and its report
/// says what the stack holds.
struct ResolvedTargets {
    /// The object of each key asked (nil for a key that resolved to nothing or was released).
    private(set) var objects: [String: AnyObject?] = [:]
    /// The keys whose object was freed when the restore let go of it.
    private(set) var released: Set<String> = []
    private var lastKey: String?
    private var lastObject: AnyObject?

    /// The object for `key`, asking `resolve` only for a key not asked before.
    ///
    /// - Complexity: O(1), plus the resolver for a new key.
    mutating func object(for key: String, resolve: (String) -> AnyObject?) -> AnyObject? {
        if key == lastKey { return lastObject }
        let object: AnyObject?
        if let known = objects[key] {
            object = known
        } else {
            object = resolve(key)
            objects[key] = object
        }
        lastKey = key
        lastObject = object
        return object
    }

    /// The object for `key`, as ``object(for:resolve:)`` gives it, unretained: the restore holds
    /// it until ``letGo()`` (a check of every action retained and released it otherwise).
    ///
    /// - Complexity: O(1), plus the resolver for a new key.
    mutating func unretainedObject(for key: String, resolve: (String) -> AnyObject?) -> Unmanaged<AnyObject>? {
        if key == lastKey { return lastObject.map { Unmanaged.passUnretained($0) } }
        return object(for: key, resolve: resolve).map { Unmanaged.passUnretained($0) }
    }

    /// Why a key has no object: released (its object was freed when the restore let go), or it
    /// did not resolve.
    func reasonForMissing(_ key: String) -> ActionStack.RestoreReport.Reason {
        released.contains(key) ? .objectNotKept(key) : .unresolvedKey(key)
    }

    /// Lets go of the objects, then holds again those that are still alive: the others were kept
    /// alive by nobody but the restore. Returns whether any was freed (their keys are now
    /// ``released``). Their `deinit`s run here.
    ///
    /// - Complexity: O(k) for the k keys asked.
    mutating func letGo() -> Bool {
        var weak: [(key: String, reference: WeakObject)] = []
        weak.reserveCapacity(objects.count)
        for (key, object) in objects { weak.append((key, WeakObject(object: object))) }
        lastObject = nil
        lastKey = nil
        let resolvedToNothing = objects.filter { $0.value == nil }
        objects = resolvedToNothing
        var freed = false
        for (key, reference) in weak where reference.wasObject {
            if let object = reference.object {
                objects[key] = .some(object)
            } else {
                objects[key] = .some(nil)
                released.insert(key)
                freed = true
            }
        }
        return freed
    }

    /// A weak reference to what a key resolved to.
    private struct WeakObject {
        weak var object: AnyObject?
        /// Whether the key resolved to an object at all.
        let wasObject: Bool

        init(object: AnyObject?) {
            self.object = object
            wasObject = object != nil
        }
    }
}
