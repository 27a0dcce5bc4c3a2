import ActionStack
import Foundation

/// Registers `+k` on the model and its inverse, which registers its own inverse: the redo.
@inline(never)
func bump(_ model: Model, by k: Int, on stack: ActionStack) {
    model.value += k
    stack.registerUndo(withTarget: model) { model in bump(model, by: -k, on: stack) }
}

func triangle(_ n: Int) -> Int { n * (n + 1) / 2 }

// MARK: Baselines: a plain array of closures capturing the same values.

/// Register N closures (each adds to the model), then pop and call them all: register + undo.
func baselineRegisterUndo(_ n: Int) -> Double {
    let model = Model()
    var closures: [() -> Void] = []
    let ns = nanoseconds {
        for i in 1...n {
            model.value += i
            closures.append { [model] in model.value -= i }
        }
        while let closure = closures.popLast() { closure() }
    }
    check(model.value == 0, "baseline model \(model.value)")
    return ns / Double(n)
}

/// `count` bare posts of a notification with an object and no observers.
func barePosts(_ count: Int) -> Double {
    let object = Model()
    let name = Notification.Name("ActionStackBenchmarkBarePost")
    return nanoseconds {
        for _ in 0..<count { NotificationCenter.default.post(name: name, object: object) }
    }
}

/// How many notifications `body` makes a stack post (counted on a small run, with an observer).
func postsPerAction(_ n: Int, _ body: (ActionStack) -> Void) -> Double {
    let stack = ActionStack()
    final class Count: @unchecked Sendable { var value = 0 }
    let count = Count()
    let names = [
        ActionStack.checkpointNotification, ActionStack.didOpenUndoGroupNotification,
        ActionStack.willCloseUndoGroupNotification, ActionStack.didCloseUndoGroupNotification,
        ActionStack.willUndoChangeNotification, ActionStack.didUndoChangeNotification,
        ActionStack.willRedoChangeNotification, ActionStack.didRedoChangeNotification,
    ]
    let tokens = names.map {
        NotificationCenter.default.addObserver(forName: $0, object: stack, queue: nil) { _ in count.value += 1 }
    }
    body(stack)
    for token in tokens { NotificationCenter.default.removeObserver(token) }
    stack.removeAllActions()
    return Double(count.value) / Double(n)
}

/// A stack with explicit grouping, posting notifications or not.
func explicitStack(notify: Bool) -> ActionStack {
    let stack = ActionStack()
    stack.groupsByEvent = false
    stack.postsNotifications = notify
    return stack
}

/// Registers `+1`, `+2`, ... `+n`, one action per explicit group, on the models in turn.
func registerGroups(_ n: Int, on stack: ActionStack, models: [Model]) {
    for i in 1...n {
        stack.beginUndoGrouping()
        bump(models[i % models.count], by: i, on: stack)
        stack.endUndoGrouping()
    }
}

// MARK: Scenario 1: one action per explicit group, undo all, redo all.

func scenarioEach(_ n: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    let model = Model()
    let ns = nanoseconds {
        registerGroups(n, on: stack, models: [model])
        check(model.value == triangle(n), "each: after register \(model.value)")
        for _ in 0..<n { stack.undo() }
        check(model.value == 0, "each: after undo \(model.value)")
        for _ in 0..<n { stack.redo() }
    }
    check(model.value == triangle(n), "each: after redo \(model.value)")
    check(stack.undoCount == n, "each: undo count \(stack.undoCount)")
    stack.removeAllActions()
    return ns / Double(n)
}

// MARK: Scenario 2: N actions in one group, one undo, one redo.

func scenarioSingle(_ n: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    let model = Model()
    let ns = nanoseconds {
        stack.beginUndoGrouping()
        for i in 1...n { bump(model, by: i, on: stack) }
        stack.endUndoGrouping()
        stack.undo()
        check(model.value == 0, "single: after undo \(model.value)")
        stack.redo()
    }
    check(model.value == triangle(n), "single: after redo \(model.value)")
    stack.removeAllActions()
    return ns / Double(n)
}

// MARK: Scenario 3: levelsOfUndo = 100 with N groups (trimming), against no limit.

/// The timing includes releasing every step in both runs (trimming frees steps as it goes; the
/// unlimited run frees them all at the end), so the two runs do the same work.
func scenarioLevels(_ n: Int, limit: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    stack.levelsOfUndo = limit
    let model = Model()
    var count = 0
    let ns = nanoseconds {
        registerGroups(n, on: stack, models: [model])
        count = stack.undoCount
        stack.removeAllActions()
    }
    check(model.value == triangle(n), "levels: model \(model.value)")
    check(count == (limit == 0 ? n : min(n, limit)), "levels: count \(count)")
    return ns / Double(n)
}

// MARK: Scenario 4: remove 1 target of 1000 from N actions, then undo what remains.

/// Returns ns per stored action of the removal (and checks the undo of the rest).
func scenarioRemove(_ n: Int, notify: Bool) -> Double {
    let stack = explicitStack(notify: notify)
    let models = (0..<1000).map { _ in Model() }
    registerGroups(n, on: stack, models: models)
    let removedSum = stride(from: 1000, through: n, by: 1000).reduce(0, +)
    let ns = nanoseconds { stack.removeAllActions(withTarget: models[0]) }
    check(stack.undoCount == n - n / 1000, "remove: count \(stack.undoCount)")
    for _ in 0..<stack.undoCount { stack.undo() }
    let left = models.reduce(0) { $0 + $1.value }
    check(left == removedSum, "remove: left \(left), want \(removedSum)")
    stack.removeAllActions()
    return ns / Double(n)
}

/// The baseline removal: filter an array of (target, closure) pairs by identity.
func baselineRemove(_ n: Int) -> Double {
    let models = (0..<1000).map { _ in Model() }
    var pairs: [(Model, () -> Void)] = []
    pairs.reserveCapacity(n)
    for i in 1...n {
        let model = models[i % 1000]
        pairs.append((model, { [model] in model.value -= i }))
    }
    let target = models[0]
    let ns = nanoseconds { pairs.removeAll { $0.0 === target } }
    check(pairs.count == n - n / 1000, "baseline remove: \(pairs.count)")
    return ns / Double(n)
}

// MARK: Scenario 5: automatic grouping over 1000 run-loop events, then undo all.

func scenarioAutomatic(_ n: Int, events: Int, notify: Bool) -> Double {
    let stack = ActionStack()
    stack.postsNotifications = notify
    let model = Model()
    let perEvent = n / events
    let ns = nanoseconds {
        var k = 0
        for _ in 0..<events {
            for _ in 0..<perEvent {
                k += 1
                bump(model, by: k, on: stack)
            }
            _ = RunLoop.current.run(mode: .default, before: Date.distantPast)
        }
        check(stack.undoCount == events, "automatic: \(stack.undoCount) groups")
        for _ in 0..<events { stack.undo() }
    }
    check(model.value == 0, "automatic: model \(model.value)")
    stack.removeAllActions()
    return ns / Double(perEvent * events)
}

/// The baseline: the same closures, and the same run-loop passes (each running one block).
func baselineAutomatic(_ n: Int, events: Int) -> Double {
    let model = Model()
    var closures: [() -> Void] = []
    let perEvent = n / events
    let ns = nanoseconds {
        var k = 0
        for _ in 0..<events {
            for _ in 0..<perEvent {
                k += 1
                let amount = k
                model.value += amount
                closures.append { [model] in model.value -= amount }
            }
            RunLoop.current.perform(inModes: [.default]) {}
            _ = RunLoop.current.run(mode: .default, before: Date.distantPast)
        }
        while let closure = closures.popLast() { closure() }
    }
    check(model.value == 0, "automatic baseline: model \(model.value)")
    return ns / Double(perEvent * events)
}

// MARK: Scenario 7: undo and redo with many live targets (the freed-target check).

/// Registers `n` one-action steps spread over `targets` distinct live targets, then times undo of
/// all and redo of all: ns per undo + redo. Swift gives no signal when a weakly held object dies;
/// undo and redo look for freed targets only in the steps they perform, so their cost must not
/// grow with the number of targets (before that change, 1000 targets made them 75 times slower).
func scenarioManyTargets(_ n: Int, targets: Int) -> Double {
    let stack = explicitStack(notify: false)
    let models = (0..<targets).map { _ in Model() }
    registerGroups(n, on: stack, models: models)
    let ns = nanoseconds {
        for _ in 0..<n { stack.undo() }
        for _ in 0..<n { stack.redo() }
    }
    let total = models.reduce(0) { $0 + $1.value }
    check(total == triangle(n), "targets: model sum \(total)")
    stack.removeAllActions()
    return ns / Double(n)
}

// MARK: Scenario 6: memory per stored action (run in a child process each).

/// Holds N actions (one per group, or all in one group) and returns resident bytes per action
/// above what the process had before.
func memoryProbe(_ kind: String, _ n: Int) -> Double {
    let before = residentBytes()
    let model = Model()
    switch kind {
    case "each", "single":
        let stack = ActionStack()
        stack.groupsByEvent = false
        stack.postsNotifications = false
        if kind == "single" { stack.beginUndoGrouping() }
        for i in 1...n {
            if kind == "each" { stack.beginUndoGrouping() }
            // The same capture as the baseline: the model (weakly, as target) and an Int.
            model.value += i
            stack.registerUndo(withTarget: model) { $0.value -= i }
            if kind == "each" { stack.endUndoGrouping() }
        }
        if kind == "single" { stack.endUndoGrouping() }
        let bytes = Double(peakResidentBytes() - before) / Double(n)
        withExtendedLifetime(stack) {}
        return bytes
    default:
        var closures: [() -> Void] = []
        for i in 1...n {
            model.value += i
            closures.append { [model] in model.value -= i }
        }
        let bytes = Double(peakResidentBytes() - before) / Double(n)
        withExtendedLifetime(closures) {}
        return bytes
    }
}

/// Runs `memoryProbe` in a fresh copy of this program, so heaps freed by other scenarios do not
/// hide growth.
func memoryInChild(_ kind: String, _ n: Int) -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }
    process.arguments = ["--memory-probe", kind, String(n)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return .nan }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}

/// A single run of scenario 1 with notifications off, for profiling (`--profile-each N`).
func profileEach(_ n: Int) {
    print(scenarioEach(n, notify: false))
}

/// A single run of scenario 2 with notifications off, for profiling (`--profile-single N`).
func profileSingle(_ n: Int) {
    print(scenarioSingle(n, notify: false))
}

/// A single run of scenario 4, for profiling (`--profile-remove N`).
func profileRemove(_ n: Int) {
    print(scenarioRemove(n, notify: false))
}
