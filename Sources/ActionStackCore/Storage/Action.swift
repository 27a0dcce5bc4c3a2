// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// One stored undo action: the target's box and the client's handler. 24 bytes, stored inline in a
/// ``Side``'s ring buffer: an action costs no allocation beyond the client's own closure. (Its cost,
/// when registrations state costs, is kept beside it; see ``Side/costs``.)
struct Action {
    /// The box of the target. Not retained: the ``TargetRegistry`` keeps a box alive while any
    /// stored action counts on it, so this reference is valid for as long as the action is stored.
    /// `Unmanaged`, so that reading it costs no retain and release.
    let unmanagedBox: Unmanaged<TargetBox>
    /// The client's closure, called with the target. It was registered as `(T) -> Void` for the
    /// target's class `T` and is stored retyped, without a wrapping closure (see ``HandlerBox``);
    /// it is only ever called with that target.
    let handler: (AnyObject) -> Void

    init(box: Unmanaged<TargetBox>, handler: @escaping (AnyObject) -> Void) {
        self.unmanagedBox = box
        self.handler = handler
    }

    /// The box (a strong reference; prefer the other accessors on hot paths).
    var box: TargetBox { unmanagedBox.takeUnretainedValue() }

    /// Whether the action's target is `box`.
    @inline(__always)
    func isOn(_ box: TargetBox) -> Bool { unmanagedBox.toOpaque() == Unmanaged.passUnretained(box).toOpaque() }

    /// Whether the target is alive (one weak load).
    @inline(__always)
    var isTargetAlive: Bool { unmanagedBox._withUnsafeGuaranteedRef { $0.isAlive } }

    /// Whether a sweep marked the target dead.
    @inline(__always)
    var isMarkedDead: Bool { unmanagedBox._withUnsafeGuaranteedRef { $0.isMarkedDead } }

    /// Runs the handler if the target is alive; returns whether it ran. The one weak load an
    /// action costs when it is performed.
    @inline(__always)
    func perform() -> Bool {
        guard let target = unmanagedBox._withUnsafeGuaranteedRef({ $0.object }) else { return false }
        handler(target)
        return true
    }
}

/// A client's handler for a target of class `Target`, in a form that can be retyped for storage
/// without any cost.
///
/// `unsafeBitCast` is generic: passing a closure to it directly makes the compiler wrap the closure
/// in two reabstraction thunks (two allocations and two extra calls per registration). Passing a
/// struct that holds the closure does not, because a struct's fields keep their representation.
/// `Target` is constrained to `AnyObject`, so `(Target) -> Void` takes one object reference exactly
/// as `(AnyObject) -> Void` does, and `HandlerBox<Target>` and `HandlerBox<AnyObject>` have the same
/// layout.
@usableFromInline
struct HandlerBox<Target: AnyObject> {
    @usableFromInline
    let call: (Target) -> Void

    @inlinable @inline(__always)
    init(_ call: consuming @escaping (Target) -> Void) { self.call = call }

    /// The handler retyped to take `AnyObject`; the stack only ever calls it with the target it was
    /// registered with.
    @inlinable @inline(__always)
    consuming func erased() -> (AnyObject) -> Void { unsafeBitCast(self, to: HandlerBox<AnyObject>.self).call }
}

/// The weak reference to one target, shared by every stored action on that target.
///
/// Sharing the box makes a target's death cheap to find (one weak load per distinct target, not
/// per action) and makes removal by target a pointer comparison per action.
final class TargetBox {
    /// The target, held weakly: the stack never keeps a target alive.
    weak var object: AnyObject?
    #if !canImport(ObjectiveC)
        /// Keeps the target's address from being reused while the box lives, so that the registry can
        /// find a target's box by its address alone, with no weak load. An unowned reference keeps a
        /// freed object's memory allocated (not the object alive). On Apple platforms an unowned
        /// reference to an Objective-C object does not do this, so there the registry checks identity
        /// with a weak load instead.
        unowned let pin: AnyObject
    #endif
    /// The target's address when the box was made.
    let id: ObjectIdentifier
    /// How many stored actions (either side, any depth, or in flight) use this box.
    @exclusivity(unchecked) var actionCount = 0
    /// The box's position in the registry's list, while it is registered.
    @exclusivity(unchecked) var listIndex = -1
    /// Set by a sweep on boxes whose target has died, so that the removal pass can test a flag
    /// rather than load the weak reference once per action.
    @exclusivity(unchecked) var isMarkedDead = false
    /// For the box of command actions (``UndoCommand``), the app's key for the target; nil for the
    /// box of closure actions. A target with both has two boxes.
    let commandKey: String?

    init(_ object: AnyObject, commandKey: String? = nil) {
        self.commandKey = commandKey
        self.object = object
        #if !canImport(ObjectiveC)
            self.pin = object
        #endif
        self.id = ObjectIdentifier(object)
    }

    /// Whether the target is still alive (one weak load).
    @inline(__always)
    var isAlive: Bool { object != nil }

    /// Whether this is a box of `target` (its closure box or one of its command boxes).
    @inline(__always)
    func isBox(of target: AnyObject) -> Bool {
        #if canImport(ObjectiveC)
            return object === target
        #else
            // The box pins its target's address: an object at this address is that target.
            return id == ObjectIdentifier(target)
        #endif
    }

    /// Whether this box and `other` are boxes of one target (a target with closure and command
    /// actions has a box for each).
    @inline(__always)
    func hasTarget(of other: TargetBox) -> Bool {
        if self === other { return true }
        #if canImport(ObjectiveC)
            guard let target = object else { return false }
            return other.object === target
        #else
            // Both pin their targets' addresses while they live: one address is one target.
            return id == other.id
        #endif
    }
}

/// The distinct targets of the stored actions, each with a count of the actions that use it.
///
/// Swift gives no signal when a weakly held object dies, so the stack asks when it needs to: the
/// one action being performed (its weak load runs the handler), the step on top of a stack (see
/// `ActionStack.canUndo`), or, for the counts, every distinct target once.
struct TargetRegistry {
    /// The boxes by target address.
    private(set) var boxes: [ObjectIdentifier: TargetBox] = [:]
    /// The same boxes in an array, for sweeps: iterating an array is several times cheaper than a
    /// dictionary's values.
    private(set) var list: ContiguousArray<TargetBox> = []
    /// The boxes of command actions, by target and key.
    private(set) var commandBoxes: [CommandBoxKey: TargetBox] = [:]
    /// The box of the most recent registration: a burst of edits on one target skips the lookup.
    /// Unretained: it is cleared when the box is forgotten.
    private var lastBox: Unmanaged<TargetBox>?
    /// The box of the most recent command registration, for the same reason: a burst of commands
    /// on one target under one key skips hashing the key. Unretained, cleared when forgotten.
    private var lastCommandBox: Unmanaged<TargetBox>?

    /// The box for `target`, created on first use; counts one more action for it.
    ///
    /// - Complexity: O(1) amortized; no weak load on Linux.
    @inline(__always)
    mutating func retainBox(for target: AnyObject) -> Unmanaged<TargetBox> {
        let id = ObjectIdentifier(target)
        if let last = lastBox,
            last._withUnsafeGuaranteedRef({ $0.id == id && Self.isBox($0, for: target) })
        {
            last._withUnsafeGuaranteedRef { $0.actionCount &+= 1 }
            return last
        }
        return retainBoxSlowly(for: target, id: id)
    }

    private mutating func retainBoxSlowly(for target: AnyObject, id: ObjectIdentifier) -> Unmanaged<TargetBox> {
        let box: TargetBox
        if let existing = boxes[id], Self.isBox(existing, for: target) {
            box = existing
        } else {
            if let stale = boxes[id] {
                // Only reachable where addresses are not pinned (Apple platforms): the old target
                // died and a new object took its address. The old box stays in the list until
                // its actions go; the dictionary now finds the new one.
                stale.isMarkedDead = true
            }
            box = TargetBox(target)
            boxes[id] = box
            box.listIndex = list.count
            list.append(box)
        }
        box.actionCount &+= 1
        lastBox = Unmanaged.passUnretained(box)
        return Unmanaged.passUnretained(box)
    }

    /// Whether `box` (found under `target`'s address) is `target`'s box.
    @inline(__always)
    private static func isBox(_ box: TargetBox, for target: AnyObject) -> Bool {
        #if canImport(ObjectiveC)
            return box.object === target
        #else
            // The box pins its target's address: an object at this address is that target.
            return true
        #endif
    }

    /// Counts one action fewer for `box`; forgets the box when no action uses it.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func release(_ box: Unmanaged<TargetBox>) {
        let unused = box._withUnsafeGuaranteedRef { box in
            box.actionCount &-= 1
            return box.actionCount == 0
        }
        if unused { forget(box.takeUnretainedValue()) }
    }

    private mutating func forget(_ box: TargetBox) {
        if lastBox?.toOpaque() == Unmanaged.passUnretained(box).toOpaque() { lastBox = nil }
        if lastCommandBox?.toOpaque() == Unmanaged.passUnretained(box).toOpaque() { lastCommandBox = nil }
        if let key = box.commandKey {
            let boxKey = CommandBoxKey(id: box.id, key: key)
            if commandBoxes[boxKey] === box { commandBoxes[boxKey] = nil }
        } else if boxes[box.id] === box {
            boxes[box.id] = nil
        }
        unlist(box)
    }

    /// The box currently registered for `target`, if any stored action uses it.
    func box(for target: AnyObject) -> TargetBox? {
        guard let box = boxes[ObjectIdentifier(target)], box.object === target else { return nil }
        return box
    }

    /// Every box of `target`: its closure box and its command boxes.
    ///
    /// - Complexity: O(1) without command boxes; O(b) for the b boxes otherwise.
    func allBoxes(for target: AnyObject) -> [TargetBox] {
        var found: [TargetBox] = box(for: target).map { [$0] } ?? []
        if !commandBoxes.isEmpty {
            found += commandBoxes.values.filter { $0.object === target }
        }
        return found
    }

    /// The box of `target`'s command actions registered under `key`, if any stored action uses it.
    func commandBox(for target: AnyObject, key: String) -> TargetBox? {
        guard let box = commandBoxes[CommandBoxKey(id: ObjectIdentifier(target), key: key)], box.object === target
        else { return nil }
        return box
    }

    /// The box of `target`'s command actions registered under `key`, retained for one more action.
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func retainCommandBox(for target: AnyObject, key: String) -> Unmanaged<TargetBox> {
        let id = ObjectIdentifier(target)
        if let last = lastCommandBox,
            last._withUnsafeGuaranteedRef({ $0.id == id && $0.commandKey == key && Self.isBox($0, for: target) })
        {
            last._withUnsafeGuaranteedRef { $0.actionCount &+= 1 }
            return last
        }
        return retainCommandBoxSlowly(for: target, key: key)
    }

    private mutating func retainCommandBoxSlowly(for target: AnyObject, key: String) -> Unmanaged<TargetBox> {
        let boxKey = CommandBoxKey(id: ObjectIdentifier(target), key: key)
        let box: TargetBox
        if let existing = commandBoxes[boxKey], existing.object === target {
            box = existing
        } else {
            if let stale = commandBoxes[boxKey] { stale.isMarkedDead = true }
            box = TargetBox(target, commandKey: key)
            commandBoxes[boxKey] = box
            box.listIndex = list.count
            list.append(box)
        }
        box.actionCount &+= 1
        lastCommandBox = Unmanaged.passUnretained(box)
        return Unmanaged.passUnretained(box)
    }

    /// Marks the boxes whose target has died; returns whether there was one.
    ///
    /// - Complexity: O(t) for t distinct targets (one weak load each).
    func markDeadBoxes() -> Bool {
        var found = false
        for box in list where box.isMarkedDead || !box.isAlive {
            box.isMarkedDead = true
            found = true
        }
        return found
    }

    /// Forgets every box.
    mutating func removeAll() {
        for box in list { box.listIndex = -1 }
        boxes = [:]
        commandBoxes = [:]
        list = []
        lastBox = nil
        lastCommandBox = nil
    }

    /// The number of distinct targets.
    var count: Int { list.count }

    /// Takes `box` out of the list (swap with the last, O(1)).
    private mutating func unlist(_ box: TargetBox) {
        let index = box.listIndex
        guard index >= 0, index < list.count, list[index] === box else { return }
        let moved = list.removeLast()
        if index < list.count {
            list[index] = moved
            moved.listIndex = index
        }
        box.listIndex = -1
    }
}

// The storage belongs to one stack and lives in its isolation domain, like the stack.
@available(*, unavailable) extension TargetBox: Sendable {}
@available(*, unavailable) extension Action: Sendable {}
@available(*, unavailable) extension HandlerBox: Sendable {}

extension TargetBox: CustomReflectable {
    /// What reflection shows of a box. Reflecting the stored properties would read the unowned pin,
    /// which traps once the target is freed.
    var customMirror: Mirror {
        Mirror(self, children: ["id": id, "actionCount": actionCount, "isAlive": isAlive], displayStyle: .class)
    }
}

/// Finds the box of a target's command actions registered under one key.
struct CommandBoxKey: Hashable {
    var id: ObjectIdentifier
    var key: String
}
