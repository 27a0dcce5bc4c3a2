// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// A history as it is saved: the steps that can be brought back after a relaunch, as values.
///
/// ``ActionStack/savedHistory(maximumSteps:)`` makes one from a stack, and
/// ``ActionStack/restoreHistory(_:resolvingTargets:)`` puts one back into an empty stack. A
/// ``HistoryArchive`` holds several, under the fingerprint of the document they belong to, and
/// encodes them.
///
/// The history is a tree of nodes, each a document state, numbered as a branching history numbers
/// them (a linear history is saved as a line: the root is 0, then its steps in order). Each
/// ``SavedStep`` leads from its parent node to its node and holds the actions that performing it
/// runs next: the undo actions for the steps at and above the current node, the redo actions for
/// the others.
public struct SavedHistory: Sendable {
    /// The shape of the stack it was saved from.
    public var shape: ActionStack.HistoryShape { didSet { isKnownValid = false } }
    /// The node the history starts from: the oldest state it can return to.
    public var root: Int { didSet { isKnownValid = false } }
    /// The node the document was in.
    public var current: Int { didSet { isKnownValid = false } }
    /// The node of the clean (saved) state, when it lies in the saved part of the history.
    public var clean: Int? { didSet { isKnownValid = false } }
    /// The steps, each leading from its parent node to its node, parents before children.
    public var steps: [SavedStep] { didSet { isKnownValid = false } }
    /// When the root's state began (a branching history dates its nodes): the date of the change
    /// that led to it, or when the history began. Nil when the stack did not date it (a linear
    /// history); a restore then dates the root at the restore.
    public var rootDate: Date?
    /// What the save left out of the stack's history, and why: empty when it saved every step the
    /// stack held.
    ///
    /// A step that holds an action registered as a closure cannot be saved, and nothing beyond it
    /// could be reached after a relaunch, so a save leaves out that step and every step beyond it
    /// (``Omission/Reason/closure``); `maximumSteps` leaves out the farthest steps
    /// (``Omission/Reason/maximumSteps``). Each step left out is counted once, for the reason the
    /// walk outward from the current state stopped before it. At most one entry per reason, in the
    /// order of their raw values. The archive saves them with the history, and a restore reports
    /// them again (``ActionStack/RestoreReport/omittedWhenSaved``), so that the app can say what
    /// did not survive. The fix for a closure is to register the change as a command
    /// (``UndoCommand``, ``AsyncUndoCommand``).
    public var omissions: [Omission]
    /// The app's version of the document when the history was saved, for a document that others
    /// change too: the version given with the last remote change the stack had heard of
    /// (``ActionStack/applyRemoteChange(_:version:_:)``). After a restore, the app reports the
    /// remote changes made since this version, and the restored steps move past them (see
    /// <doc:UndoInASharedDocument>). Nil when none was given.
    public var remoteVersion: String?
    /// The number a branching stack gives the next change after a restore: one above every node
    /// the saved stack ever made, as vim keeps the number of its last change (`seq_last`) in its
    /// undo file, so that a number is never given to two changes, not even across a relaunch.
    ///
    /// It can be above the highest node saved: a step whose number was given is gone from the
    /// history (its target freed, removed by target, pruned, or left out of the save because it
    /// holds a closure or lies beyond `maximumSteps`). A branching stack saves it; a linear stack,
    /// which saves its steps numbered from its root in order, saves none. Nil: the next change is
    /// numbered one above the highest node this history holds, restored or not (a step a restore
    /// cuts was a change too, and keeps its number; a history saved before this property existed,
    /// or made by hand). ``validate()`` refuses a value that is not above every node held
    /// (``StructuralProblem/nextNodeNotAbove(next:node:)``) or above ``maximumNode`` + 1.
    public var nextNode: Int? { didSet { isKnownValid = false } }

    /// Whether the history is known to pass ``validate()``: set by what makes a history that does
    /// (a stack saving its history, a reader that validated it), cleared by any change, so that
    /// restoring and encoding do not validate it again.
    ///
    /// A `package` hook for ActionStackArchive (the archive, the archive's reader and writer, the journal's replay).
    package var isKnownValid = false

    /// A history.
    ///
    /// - Parameters:
    ///   - shape: The shape of the stack it comes from.
    ///   - root: The root node.
    ///   - current: The current node.
    ///   - clean: The clean node, if any.
    ///   - steps: The steps, parents before children.
    ///   - rootDate: When the root's state began, if known.
    ///   - omissions: What the save left out (see ``omissions``).
    ///   - remoteVersion: The app's version of the document, for a document that others change too.
    public init(
        shape: ActionStack.HistoryShape, root: Int, current: Int, clean: Int?, steps: [SavedStep],
        rootDate: Date? = nil, omissions: [Omission] = [], remoteVersion: String? = nil
    ) {
        self.shape = shape
        self.root = root
        self.current = current
        self.clean = clean
        self.steps = steps
        self.rootDate = rootDate
        self.omissions = omissions
        self.remoteVersion = remoteVersion
        self.nextNode = nil
    }

    /// The number of steps the save left out, for every reason (the sum of ``omissions``).
    ///
    /// - Complexity: O(r) for the r entries of ``omissions``.
    public var omittedSteps: Int { omissions.reduce(0) { $0 + $1.steps } }
}

extension SavedHistory {
    /// Steps that a save left out of the stack's history, and why (see ``SavedHistory/omissions``).
    public struct Omission: Hashable, Sendable, CustomStringConvertible {
        /// Why a save left steps out. New reasons may come: compare with the static members, and
        /// print the description.
        public struct Reason: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
            /// The reason's name in the archive.
            public var rawValue: String

            /// The reason named `rawValue` (an archive may name one this library does not know).
            ///
            /// - Parameter rawValue: The reason's name.
            /// - Complexity: O(1).
            public init(rawValue: String) { self.rawValue = rawValue }

            /// A step nearer the current state holds an action registered as a closure
            /// (``ActionStack/registerUndo(withTarget:handler:)``,
            /// ``ActionStack/registerAsyncUndo(withTarget:handler:)``,
            /// ``ActionStack/setValue(_:for:on:actionName:)``), not as a command: that step and
            /// every step beyond it. Register the change as an ``UndoCommand`` (or an
            /// ``AsyncUndoCommand``) to save it.
            public static let closure = Reason(rawValue: "closure")
            /// More steps than the save's `maximumSteps`: the farthest ones.
            public static let maximumSteps = Reason(rawValue: "maximumSteps")

            /// What the reason is, as a sentence fragment.
            public var description: String {
                switch self {
                case .closure: "a step holds a closure, not a command"
                case .maximumSteps: "over maximumSteps"
                default: rawValue
                }
            }
        }

        /// Why.
        public let reason: Reason
        /// How many steps were left out for this reason (0 or more).
        public let steps: Int
        /// For ``Reason/closure``: the action name of the step that holds a closure nearest the
        /// current state (the one to make into commands first); nil for the other reasons.
        public let stepName: String?

        /// Steps left out.
        ///
        /// - Parameters:
        ///   - reason: Why.
        ///   - steps: How many (a negative count is taken as 0).
        ///   - stepName: The name of the step that holds a closure, for ``Reason/closure``.
        /// - Complexity: O(1).
        public init(reason: Reason, steps: Int, stepName: String? = nil) {
            self.reason = reason
            self.steps = Swift.max(0, steps)
            self.stepName = stepName
        }

        /// "2 steps at and beyond "Paste", which holds a closure, not a command", "5 steps over
        /// maximumSteps".
        public var description: String {
            let count = "\(steps) step\(steps == 1 ? "" : "s")"
            switch reason {
            case .closure:
                let name = stepName.map { $0.isEmpty ? "an unnamed step" : "\"\($0)\"" } ?? "a step"
                return "\(count) at and beyond \(name), which holds a closure, not a command"
            default:
                return "\(count) \(reason.description)"
            }
        }
    }
}

/// One saved step: its place in the tree, what it shows, and its actions.
public struct SavedStep: Sendable {
    /// The node the step leads to.
    public var node: Int
    /// The node it leads from.
    public var parent: Int
    /// Whether ``ActionStack/redo()`` at the parent enters this node (the branch visited last).
    public var isRedoChoice: Bool
    /// When the change was made (nil when the stack did not date it: a linear history).
    public var date: Date?
    /// The step's action name.
    public var actionName: String
    /// Whether the step is discardable.
    public var isDiscardable: Bool
    /// The step's user info: the values of the JSON kinds (see ``SavedValue``); others are not
    /// saved.
    public var userInfo: [String: SavedValue]
    /// The actions, in the order they were registered.
    public var actions: [SavedAction] {
        get { actionList.array }
        set { actionList = SavedActionList(newValue) }
    }

    /// The actions as they are stored (see ``SavedActionList``).
    ///
    /// A `package` hook for ActionStackArchive.
    package var actionList: SavedActionList

    /// A step.
    ///
    /// - Parameters:
    ///   - node: The node it leads to.
    ///   - parent: The node it leads from.
    ///   - isRedoChoice: Whether redo at the parent enters it.
    ///   - date: When the change was made.
    ///   - actionName: Its name.
    ///   - isDiscardable: Whether it is discardable.
    ///   - userInfo: Its user info.
    ///   - actions: Its actions, in registration order.
    public init(
        node: Int, parent: Int, isRedoChoice: Bool, date: Date?, actionName: String, isDiscardable: Bool,
        userInfo: [String: SavedValue], actions: [SavedAction]
    ) {
        self.init(
            node: node, parent: parent, isRedoChoice: isRedoChoice, date: date, actionName: actionName,
            isDiscardable: isDiscardable, userInfo: userInfo, actionList: SavedActionList(actions))
    }

    /// A step with its actions as they are stored.
    ///
    /// A `package` hook for ActionStackArchive.
    package init(
        node: Int, parent: Int, isRedoChoice: Bool, date: Date?, actionName: String, isDiscardable: Bool,
        userInfo: [String: SavedValue], actionList: SavedActionList
    ) {
        self.node = node
        self.parent = parent
        self.isRedoChoice = isRedoChoice
        self.date = date
        self.actionName = actionName
        self.isDiscardable = isDiscardable
        self.userInfo = userInfo
        self.actionList = actionList
    }
}

/// The actions of a saved step as they are stored: most steps hold one action, which is kept in
/// line, so that a history of such steps costs no array per step to save, read or restore.
///
/// A `package` hook for ActionStackArchive.
package struct SavedActionList: Sendable {
    /// The number of actions.
    ///
    /// A `package` hook for ActionStackArchive.
    package private(set) var count: Int
    /// The first action; a placeholder when there is none (not an optional, so that reading a
    /// field of it is a plain projection). Hot loops read `first` and `rest` in place: a method
    /// called on the list, even a non-mutating one, copies it first.
    ///
    /// A `package` hook for ActionStackArchive.
    package private(set) var first: SavedAction
    /// The actions after the first.
    ///
    /// A `package` hook for ActionStackArchive.
    package private(set) var rest: [SavedAction]

    /// The actions of `actions`.
    ///
    /// A `package` hook for ActionStackArchive.
    package init(_ actions: [SavedAction]) {
        count = actions.count
        first = actions.first ?? .placeholder
        rest = actions.count > 1 ? Array(actions.dropFirst()) : []
    }

    /// One action.
    ///
    /// A `package` hook for ActionStackArchive.
    package init(single action: SavedAction) {
        count = 1
        first = action
        rest = []
    }

    /// No action.
    ///
    /// A `package` hook for ActionStackArchive.
    package init() {
        count = 0
        first = .placeholder
        rest = []
    }

    /// Appends `action`.
    ///
    /// A `package` hook for ActionStackArchive.
    package mutating func append(_ action: SavedAction) {
        if count == 0 { first = action } else { rest.append(action) }
        count += 1
    }

    /// The actions as an array (made for the caller).
    var array: [SavedAction] {
        guard count > 0 else { return [] }
        return rest.isEmpty ? [first] : [first] + rest
    }

    /// The action at `index`.
    ///
    /// A `package` hook for ActionStackArchive.
    package subscript(index: Int) -> SavedAction { index == 0 ? first : rest[index - 1] }

    /// The command of the action at `index`.
    ///
    /// A `package` hook for ActionStackArchive.
    package func command(at index: Int) -> (any SavableCommand)? {
        index == 0 ? first.command : rest[index - 1].command
    }

    /// The key of the action at `index`.
    func key(at index: Int) -> String { index == 0 ? first.key : rest[index - 1].key }

    /// The cost of the action at `index`.
    func cost(at index: Int) -> Int { index == 0 ? first.cost : rest[index - 1].cost }
}

/// One saved action: a command, with the key of its target and its cost.
public struct SavedAction: Sendable {
    /// The command's ``SavableCommand/commandType``.
    public var commandType: String
    /// The version of its encoded form.
    public var version: Int
    /// The app's key for its target.
    public var key: String
    /// The cost it was registered with (see ``ActionStack/RegistrationOptions/cost``).
    public var cost: Int
    /// The command; nil when it could not be read back (``problem`` says why).
    public var command: (any SavableCommand)?
    /// Why the command could not be read back, when it could not.
    public var problem: SavedActionProblem?

    /// An action holding `command`.
    ///
    /// - Parameters:
    ///   - command: The command.
    ///   - key: The app's key for its target.
    ///   - cost: Its cost.
    public init<Command: SavableCommand>(_ command: Command, key: String, cost: Int = 0) {
        self.commandType = Command.commandType
        self.version = Command.version
        self.key = key
        self.cost = cost
        self.command = command
        self.problem = nil
    }

    /// An action holding `command`, whose type's name and version are given.
    ///
    /// A `package` hook for ActionStackArchive.
    package init(command: any SavableCommand, commandType: String, version: Int, key: String, cost: Int) {
        self.commandType = commandType
        self.version = version
        self.key = key
        self.cost = cost
        self.command = command
        self.problem = nil
    }

    /// What fills the first slot of a step with no action (never read as an action).
    static let placeholder = SavedAction(
        commandType: "", version: 0, key: "", cost: 0, problem: .unknownType(""))

    /// An action that could not be read back.
    ///
    /// - Parameters:
    ///   - commandType: The type name the file gives.
    ///   - version: The version the file gives.
    ///   - key: The key the file gives.
    ///   - cost: The cost the file gives.
    ///   - problem: Why it could not be read.
    public init(commandType: String, version: Int, key: String, cost: Int, problem: SavedActionProblem) {
        self.commandType = commandType
        self.version = version
        self.key = key
        self.cost = cost
        self.command = nil
        self.problem = problem
    }
}

/// Why a saved action could not be read back.
///
/// Extensible: new problems may be added in any release; do not switch exhaustively. Compare with
/// a static member (`problem == .unknownType("Move")`), and read what a problem carries through
/// ``commandType``, ``version``, ``knownVersion`` and ``reason``. The ``description`` is stable.
public struct SavedActionProblem: Hashable, Sendable, CustomStringConvertible {
    /// The problems this version knows, with what each carries.
    private enum Code: Hashable, Sendable {
        case unknownType(String)
        case newerVersion(type: String, version: Int, known: Int)
        case decodingFailed(type: String, reason: String)
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// No command type of this name is registered (see ``CommandRegistry``).
    ///
    /// - Parameter type: The command type's name.
    /// - Returns: The problem.
    public static func unknownType(_ type: String) -> SavedActionProblem { SavedActionProblem(.unknownType(type)) }

    /// The file's version of the command is newer than the registered type's.
    ///
    /// - Parameters:
    ///   - type: The command type's name.
    ///   - version: The version in the file.
    ///   - known: The registered type's version.
    /// - Returns: The problem.
    public static func newerVersion(type: String, version: Int, known: Int) -> SavedActionProblem {
        SavedActionProblem(.newerVersion(type: type, version: version, known: known))
    }

    /// The command's payload did not decode (or its migration threw).
    ///
    /// - Parameters:
    ///   - type: The command type's name.
    ///   - reason: Why, as the decoder or the migration said.
    /// - Returns: The problem.
    public static func decodingFailed(type: String, reason: String) -> SavedActionProblem {
        SavedActionProblem(.decodingFailed(type: type, reason: reason))
    }

    /// The name of the command type the problem is about (every problem names one).
    public var commandType: String {
        switch code {
        case .unknownType(let type), .newerVersion(let type, _, _), .decodingFailed(let type, _): type
        }
    }

    /// For ``newerVersion(type:version:known:)``, the version in the file; nil for every other
    /// problem.
    public var version: Int? {
        if case .newerVersion(_, let version, _) = code { version } else { nil }
    }

    /// For ``newerVersion(type:version:known:)``, the registered type's version; nil for every
    /// other problem.
    public var knownVersion: Int? {
        if case .newerVersion(_, _, let known) = code { known } else { nil }
    }

    /// For ``decodingFailed(type:reason:)``, why the payload did not decode; nil for every other
    /// problem.
    public var reason: String? {
        if case .decodingFailed(_, let reason) = code { reason } else { nil }
    }

    /// What went wrong, as a sentence fragment.
    public var description: String {
        switch code {
        case .unknownType(let type): "unknown command type \"\(type)\""
        case .newerVersion(let type, let version, let known):
            "command \"\(type)\" has version \(version), newer than the \(known) this app knows"
        case .decodingFailed(let type, let reason): "command \"\(type)\" did not decode: \(reason)"
        }
    }
}

/// A user-info value that can be saved: the JSON kinds, a date and data.
///
/// Frozen: these are the kinds the history archive's format stores. A new kind would be a new
/// version of the format that older readers could not read, so it would come with a major release;
/// until then no case will be added, and a `switch` over a value may be exhaustive.
@frozen
public enum SavedValue: Hashable, Sendable, Codable {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A Boolean.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Bytes.
    case data(Data)

    /// The value for a user-info value, when it is of a kind that can be saved.
    ///
    /// A double that is not finite (NaN, an infinity), and a date at such a time, have no JSON
    /// form: they are not values that can be saved (nil), as a value of another kind is not, and a
    /// save leaves them out of the step's user info rather than failing.
    ///
    /// - Parameter value: A user-info value.
    public init?(_ value: Any) {
        let saved: SavedValue
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            // A Foundation number says what it holds: a number holding 1 is not the Bool true,
            // nor 2.0 the Int 2, though casts say so on Linux.
            saved = Self.kind(of: number)
        } else {
            switch value {
            case let value as String: saved = .string(value)
            case let value as Bool: saved = .bool(value)
            case let value as Int: saved = .int(value)
            case let value as Double: saved = .double(value)
            case let value as Date: saved = .date(value)
            case let value as Data: saved = .data(value)
            default: return nil
            }
        }
        switch saved {
        case .double(let double) where !double.isFinite: return nil
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite: return nil
        default: self = saved
        }
    }

    /// The saved value of a Foundation number, by the kind it was made from.
    private static func kind(of number: NSNumber) -> SavedValue {
        #if canImport(Darwin)
            if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
        #else
            // Only a Bool's number says "c" on Linux (an Int8's says "i").
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
        #endif
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L", "I":
            // Unsigned: an Int while it fits.
            return Int(exactly: number.uint64Value).map(SavedValue.int) ?? .double(number.doubleValue)
        default: return .int(number.intValue)
        }
    }

    /// The value as the user info holds it.
    public var value: Any {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .date(let value): value
        case .data(let value): value
        }
    }
}
