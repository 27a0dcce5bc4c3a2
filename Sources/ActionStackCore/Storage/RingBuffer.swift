// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(ucrt)
    import ucrt
#endif

/// A double-ended queue of values in one contiguous allocation used as a ring.
///
/// The history needs four cheap operations: append and remove at the newest end (register, undo,
/// redo), remove at the oldest end (trimming to `levelsOfUndo`), and read any element by position.
/// All four are O(1) (append amortized). Elements are stored inline, so a stored action or step
/// costs no allocation of its own, and removing one releases what it holds at once.
///
/// A noncopyable struct with manually managed memory rather than a struct over an `Array`: the
/// buffer has one owner (a ``Side`` of one stack, which stores it inline), is never copied, and so
/// needs neither copy-on-write, nor the uniqueness check an `Array` makes on every mutation, nor a
/// retain of a buffer object on every access.
struct RingBuffer<Element: BitwiseMovable>: ~Copyable {
    /// The slots; `capacity` of them, a power of two (or zero).
    private var slots: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// The slot of the oldest element.
    private var head = 0
    /// The number of elements.
    private(set) var count = 0

    init() {
        // No allocation until the first append; the pointer is never read while capacity is 0.
        slots = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment)!
        capacity = 0
    }

    deinit {
        var position = 0
        while position < count {
            (slots + slot(position)).deinitialize(count: 1)
            position += 1
        }
        if capacity > 0 { free(slots) }
    }

    var isEmpty: Bool { count == 0 }

    /// The slot of the element at `position` (0 is the oldest).
    @inline(__always)
    private func slot(_ position: Int) -> Int { (head &+ position) & (capacity &- 1) }

    /// The element at `position` (0 is the oldest).
    ///
    /// - Complexity: O(1).
    subscript(position: Int) -> Element {
        @inline(__always) get {
            precondition(position >= 0 && position < count, "RingBuffer position out of range")
            return slots[slot(position)]
        }
        @inline(__always) _modify {
            precondition(position >= 0 && position < count, "RingBuffer position out of range")
            yield &slots[slot(position)]
        }
    }

    /// The newest element.
    var last: Element? { count == 0 ? nil : slots[slot(count &- 1)] }

    /// Appends at the newest end.
    ///
    /// - Complexity: O(1) amortized.
    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (slots + slot(count)).initialize(to: element)
        count &+= 1
    }

    /// Whether the next append grows the buffer.
    var isFull: Bool { count == capacity }

    /// Grows the buffer if it is full, so that the next append makes no call.
    ///
    /// - Complexity: O(n) when it grows.
    mutating func makeRoom() {
        if count == capacity { grow() }
    }

    /// Appends at the newest end of a buffer that is not full (see ``makeRoom()``): no call, so a
    /// caller that reaches the buffer through a class reference it loaded need not retain it.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func appendInRoom(_ element: consuming Element) {
        precondition(count < capacity, "RingBuffer.appendInRoom on a full buffer")
        (slots + slot(count)).initialize(to: element)
        count &+= 1
    }

    /// Removes and returns the newest element.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty RingBuffer")
        count &-= 1
        return (slots + slot(count)).move()
    }

    /// Removes and returns the oldest element.
    ///
    /// - Complexity: O(1).
    mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst on an empty RingBuffer")
        let element = (slots + head).move()
        head = (head &+ 1) & (capacity &- 1)
        count &-= 1
        return element
    }

    /// Removes every element, releasing what they hold; keeps the allocation.
    ///
    /// - Complexity: O(n).
    mutating func removeAll() {
        while count > 0 { _ = removeLast() }
        head = 0
    }

    /// Moves the element at `source` to `destination` (`destination < source`), leaving `source`
    /// uninitialized. For in-place compaction: the caller fills or truncates the gap.
    @inline(__always)
    func moveElement(from source: Int, to destination: Int) {
        (slots + slot(destination)).moveInitialize(from: slots + slot(source), count: 1)
    }

    /// Takes the element at `position` out, leaving the slot uninitialized (compaction).
    @inline(__always)
    func take(_ position: Int) -> Element {
        (slots + slot(position)).move()
    }

    /// Declares the elements at positions `newCount..<count` already moved out (compaction).
    @inline(__always)
    mutating func forgetTail(from newCount: Int) {
        count = newCount
    }

    /// Doubles the capacity.
    ///
    /// The memory is the C allocator's, so that a buffer whose elements start at its first slot (one
    /// that has only grown, the common case) is grown with `realloc`, which extends large blocks in
    /// place or remaps their pages instead of copying them. Moving the elements' bytes is a valid
    /// move of the elements themselves: `Element` is ``BitwiseMovable``.
    ///
    /// - Complexity: O(n), amortized O(1) per append.
    @inline(never)
    private mutating func grow() {
        // `malloc` and `realloc` align to 16 bytes.
        precondition(MemoryLayout<Element>.alignment <= 16, "RingBuffer: element alignment above 16")
        let newCapacity = Swift.max(8, capacity &* 2)
        let bytes = newCapacity * MemoryLayout<Element>.stride
        if capacity == 0 || head == 0 {
            let old: UnsafeMutableRawPointer? = capacity == 0 ? nil : UnsafeMutableRawPointer(slots)
            guard let grown = realloc(old, bytes) else { fatalError("ActionStack: out of memory") }
            slots = grown.bindMemory(to: Element.self, capacity: newCapacity)
        } else {
            guard let fresh = malloc(bytes) else { fatalError("ActionStack: out of memory") }
            let newSlots = fresh.bindMemory(to: Element.self, capacity: newCapacity)
            // Move the elements to the start of the new allocation, oldest first: two runs.
            let firstRun = Swift.min(count, capacity &- head)
            newSlots.moveInitialize(from: slots + head, count: firstRun)
            (newSlots + firstRun).moveInitialize(from: slots, count: count &- firstRun)
            free(slots)
            slots = newSlots
        }
        capacity = newCapacity
        head = 0
    }
}

/// A type whose values a ``RingBuffer`` may move by copying their bytes, as `realloc` does.
///
/// Swift moves a value bitwise when what it holds is strong references, closures and plain data. A
/// value that holds a weak reference (or, on Apple platforms, an unowned reference to an
/// Objective-C object) must not conform: the runtime may keep track of that reference's address.
/// What the stack stores conforms: actions (a box reference and a closure), steps (counts, ids and a
/// strong reference) and costs.
protocol BitwiseMovable {}

extension Action: BitwiseMovable {}
extension Step: BitwiseMovable {}
extension Int: BitwiseMovable {}

// A ring buffer belongs to one stack and lives in that stack's isolation domain.
@available(*, unavailable) extension RingBuffer: Sendable {}
