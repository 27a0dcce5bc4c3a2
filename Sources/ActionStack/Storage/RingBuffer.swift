/// A double-ended queue on a power-of-two ring of slots.
///
/// The undo history needs three cheap operations: push and pop at the newest end (register, undo,
/// redo), and drop at the oldest end (trimming to `levelsOfUndo`). An `Array` makes the last one
/// O(n); this buffer makes all three O(1) (push amortized), and it releases a dropped element at
/// once, so what an action captured does not outlive it.
struct RingBuffer<Element> {
    private var slots: ContiguousArray<Element?>
    private var head = 0
    private(set) var count = 0

    init() { slots = [] }

    var isEmpty: Bool { count == 0 }

    /// Physical slot of the logical index `i` (0 = oldest).
    @inline(__always)
    private func slot(_ i: Int) -> Int { (head &+ i) & (slots.count &- 1) }

    subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count, "RingBuffer index out of range")
            return slots[slot(i)]!
        }
        set {
            precondition(i >= 0 && i < count, "RingBuffer index out of range")
            slots[slot(i)] = newValue
        }
    }

    var first: Element? { count == 0 ? nil : slots[head] }
    var last: Element? { count == 0 ? nil : slots[slot(count - 1)] }

    /// - Complexity: O(1) amortized.
    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[slot(count)] = element
        count += 1
    }

    /// - Complexity: O(1).
    @discardableResult
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty RingBuffer")
        let s = slot(count - 1)
        let element = slots[s]!
        slots[s] = nil
        count -= 1
        return element
    }

    /// - Complexity: O(1).
    @discardableResult
    mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst on an empty RingBuffer")
        let element = slots[head]!
        slots[head] = nil
        head = (head + 1) & (slots.count - 1)
        count -= 1
        return element
    }

    /// - Complexity: O(n) to release the elements.
    mutating func removeAll() {
        slots = []
        head = 0
        count = 0
    }

    /// Keeps, in order, the elements for which `keep` returns `true`; one pass, stable.
    ///
    /// - Complexity: O(n).
    mutating func retain(where keep: (Element) throws -> Bool) rethrows {
        var write = 0
        for read in 0..<count {
            let element = slots[slot(read)]!
            if try keep(element) {
                if write != read { slots[slot(write)] = element }
                write += 1
            }
        }
        for i in write..<count { slots[slot(i)] = nil }
        count = write
    }

    private mutating func grow() {
        let newCapacity = Swift.max(8, slots.count * 2)
        var newSlots = ContiguousArray<Element?>(repeating: nil, count: newCapacity)
        // Move rather than copy: `take()` leaves nil behind, so growing costs no retain and
        // release per element, and the buffers are accessed directly, without a uniqueness check
        // per element (growth was 4% of a register + undo + redo, measured with callgrind).
        let (oldHead, oldCount, mask) = (head, count, slots.count &- 1)
        slots.withUnsafeMutableBufferPointer { old in
            newSlots.withUnsafeMutableBufferPointer { new in
                for i in 0..<oldCount { new[i] = old[(oldHead &+ i) & mask].take() }
            }
        }
        slots = newSlots
        head = 0
    }
}

extension RingBuffer: Sequence {
    struct Iterator: IteratorProtocol {
        let buffer: RingBuffer
        var index = 0
        mutating func next() -> Element? {
            guard index < buffer.count else { return nil }
            defer { index += 1 }
            return buffer[index]
        }
    }
    func makeIterator() -> Iterator { Iterator(buffer: self) }
}
