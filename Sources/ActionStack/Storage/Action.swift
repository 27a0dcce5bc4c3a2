/// The weak reference to one target, shared by every stored action on that target.
///
/// Sharing the box makes a target's death cheap to detect (one weak load per distinct target, not
/// per action) and makes removal by target a pointer comparison.
@usableFromInline
final class TargetBox {
    weak var object: AnyObject?
    let id: ObjectIdentifier
    /// How many stored actions (on either side, at any depth) use this box.
    @exclusivity(unchecked) var actionCount = 0
    /// The box's position in the registry's list, while it is registered.
    @exclusivity(unchecked) var listIndex = -1

    init(_ object: AnyObject) {
        self.object = object
        self.id = ObjectIdentifier(object)
    }

    var isAlive: Bool { object != nil }
}

/// One registered undo action: a target, held weakly, and the handler to run on it.
///
/// The class is the type-erased base; `TypedAction` keeps the handler with its real type, so
/// registering costs one allocation and undoing one virtual call, with no re-wrapping closure.
@usableFromInline
class Action {
    let box: TargetBox

    @usableFromInline
    init(box: TargetBox) { self.box = box }

    /// Runs the handler if the target is still alive. Returns whether it ran.
    func perform() -> Bool { fatalError("Action is abstract") }

    /// The cost the registration stated (see `ActionStack.maximumCost`); 0 for most actions, which
    /// then need no storage for it.
    var cost: Int { 0 }
}

@usableFromInline
class TypedAction<Target: AnyObject>: Action {
    let handler: (Target) -> Void

    @usableFromInline
    init(box: TargetBox, handler: @escaping (Target) -> Void) {
        self.handler = handler
        super.init(box: box)
    }

    override func perform() -> Bool {
        guard let object = box.object else { return false }
        // The box was made from a `Target` instance and is only shared by actions whose target is
        // that same object (identity), so the downcast cannot fail.
        handler(unsafeDowncast(object, to: Target.self))
        return true
    }
}

/// An action registered with a cost.
final class CostedAction<Target: AnyObject>: TypedAction<Target> {
    let storedCost: Int

    init(box: TargetBox, cost: Int, handler: @escaping (Target) -> Void) {
        storedCost = cost
        super.init(box: box, handler: handler)
    }

    override var cost: Int { storedCost }
}

// The storage classes belong to one stack and live in its isolation domain, like the stack.
@available(*, unavailable) extension TargetBox: Sendable {}
@available(*, unavailable) extension Action: Sendable {}
