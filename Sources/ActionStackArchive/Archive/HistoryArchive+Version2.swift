// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import ActionStackCore
import Foundation

// Version 2 of the archive format, which this library writes (its layout is documented on
// `HistoryArchive`). The archive's own structure is written and read byte by byte (`JSONBytes`,
// `JSONCursor`); the commands of each history go through `JSONEncoder` and `JSONDecoder` as one
// array (`CommandPayloads.swift`).

// MARK: - Writing

/// Writes an archive in version 2 of the format.
struct ArchiveWriter {
    /// The archive so far. The writer's own small pieces go through `JSONBytes`; the output takes
    /// large pieces (a history's steps, its payloads), so it is `Data` from the start and is not
    /// copied at the end.
    private var out = Data()
    private let limits: HistoryArchive.Limits
    /// The deepest nesting written so far: the archive's object is level 1, `histories` 2, a
    /// history 3, its arrays 4, their elements 5 (a step object, a command entry), a step's user
    /// info 6 and its values 7; a payload's own levels count from 5.
    private(set) var depth = 2

    init(limits: HistoryArchive.Limits) { self.limits = limits }

    /// The archive's bytes, and their deepest nesting. The caller has validated every history and
    /// checked the limits of the archive's counts; the writer checks its strings.
    static func write(_ archive: HistoryArchive, limits: HistoryArchive.Limits) throws -> (Data, depth: Int) {
        var writer = ArchiveWriter(limits: limits)
        var head = JSONBytes()
        head.raw(#"{"format":"ActionStack.History","version":2,"fingerprint":"#)
        head.string(archive.fingerprint)
        head.raw(#","histories":{"#)
        writer.out.append(contentsOf: head.bytes)
        for (index, name) in archive.histories.keys.sorted().enumerated() {
            var key = JSONBytes()
            if index > 0 { key.byte(UInt8(ascii: ",")) }
            key.string(name)
            key.byte(UInt8(ascii: ":"))
            writer.out.append(contentsOf: key.bytes)
            try writer.write(archive.histories[name]!, named: name)
        }
        writer.out.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}")])
        return (writer.out, writer.depth)
    }

    private mutating func write(_ history: SavedHistory, named name: String) throws {
        // The payloads first: their size sizes the output, and their nesting is checked.
        let payloads = try CommandPayloadList.makeEncoder().encode(CommandPayloadList(history: history, name: name))
        // The history's arrays are at level 4; the payload array's own nesting counts from there.
        depth = Swift.max(depth, 4, 3 + JSONBytes.nestingDepth(of: payloads))
        // The steps, the actions and the costs are written apart first, since the tables they
        // fill come before them.
        var steps = JSONBytes(capacity: history.steps.count * 2)
        var columns = CommandColumns(capacity: history.steps.count * 2)
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        var previous = history.root
        var previousName = ""
        // Each step read where it lies, through a pointer: subscripts would copy its actions.
        try history.steps.withUnsafeBufferPointer { buffer throws in
            guard let all = buffer.baseAddress else { return }
            for index in buffer.indices {
                if index > 0 { steps.byte(UInt8(ascii: ",")) }
                let node = all[index].node
                let parent = all[index].parent
                let isDefault =
                    parent == previous && node == previous &+ 1 && all[index].isRedoChoice
                    && all[index].date == nil && !all[index].isDiscardable && all[index].userInfo.isEmpty
                    && all[index].actionName == previousName
                if isDefault {
                    steps.int(all[index].actionList.count)
                } else {
                    let limits = limits
                    let needed = try writeStep(
                        all[index], after: previous, previousName: previousName, into: &steps
                    ) {
                        if let known = nameIndex[$0] { return known }
                        try limits.check($0)
                        names.append($0)
                        nameIndex[$0] = names.count - 1
                        return names.count - 1
                    }
                    depth = Swift.max(depth, needed)
                }
                for position in 0..<all[index].actionList.count {
                    guard
                        let command =
                            (position == 0
                                ? all[index].actionList.first.command
                                : all[index].actionList.rest[position - 1].command)
                    else {
                        throw Self.unwritable(all[index].actionList[position], history: name, node: node)
                    }
                    let actionKey =
                        (position == 0 ? all[index].actionList.first.key : all[index].actionList.rest[position - 1].key)
                    let cost =
                        (position == 0
                            ? all[index].actionList.first.cost : all[index].actionList.rest[position - 1].cost)
                    try columns.add(command, key: actionKey, cost: cost, history: name, limits: limits)
                }
                previous = node
                previousName = all[index].actionName
            }
        }

        var head = JSONBytes(capacity: 256)
        head.raw(#"{"shape":"#)
        head.raw(history.shape == .tree ? #""tree""# : #""linear""#)
        head.raw(#","root":"#)
        head.int(history.root)
        head.raw(#","current":"#)
        head.int(history.current)
        if let clean = history.clean {
            head.raw(#","clean":"#)
            head.int(clean)
        }
        if let rootDate = history.rootDate {
            let seconds = rootDate.timeIntervalSinceReferenceDate
            guard seconds.isFinite else { throw Self.notFinite(rootDate, "the root's date") }
            head.raw(#","rootDate":"#)
            head.double(seconds)
        }
        if !history.omissions.isEmpty {
            depth = Swift.max(depth, 5)
            head.raw(#","omitted":["#)
            for (index, omission) in history.omissions.enumerated() {
                try limits.check(omission.reason.rawValue)
                if index > 0 { head.byte(UInt8(ascii: ",")) }
                head.byte(UInt8(ascii: "["))
                head.string(omission.reason.rawValue)
                head.byte(UInt8(ascii: ","))
                head.int(omission.steps)
                if let name = omission.stepName {
                    try limits.check(name)
                    head.byte(UInt8(ascii: ","))
                    head.string(name)
                }
                head.byte(UInt8(ascii: "]"))
            }
            head.byte(UInt8(ascii: "]"))
        }
        if let remoteVersion = history.remoteVersion {
            try limits.check(remoteVersion)
            head.raw(#","remoteVersion":"#)
            head.string(remoteVersion)
        }
        if let nextNode = history.nextNode {
            head.raw(#","nextNode":"#)
            head.int(nextNode)
        }
        if !columns.entries.isEmpty { depth = Swift.max(depth, 5) }
        columns.writeTable(into: &head)
        if !names.isEmpty {
            head.raw(#","names":["#)
            for (index, name) in names.enumerated() {
                if index > 0 { head.byte(UInt8(ascii: ",")) }
                head.string(name)
            }
            head.byte(UInt8(ascii: "]"))
        }
        head.raw(#","steps":["#)
        out.reserveCapacity(
            out.count + head.bytes.count + steps.bytes.count + columns.actions.bytes.count + columns.costs.bytes.count
                + payloads.count + 64)
        out.append(contentsOf: head.bytes)
        out.append(contentsOf: steps.bytes)
        var middle = JSONBytes()
        middle.raw(#"],"actions":["#)
        out.append(contentsOf: middle.bytes)
        out.append(contentsOf: columns.actions.bytes)
        middle = JSONBytes()
        middle.byte(UInt8(ascii: "]"))
        if !columns.costs.bytes.isEmpty {
            depth = Swift.max(depth, 5)
            middle.raw(#","costs":"#)
            out.append(contentsOf: middle.bytes)
            out.append(contentsOf: columns.costs.bytes)
            middle = JSONBytes()
            middle.byte(UInt8(ascii: "]"))
        }
        middle.raw(#","payloads":"#)
        out.append(contentsOf: middle.bytes)
        out.append(payloads)
        out.append(UInt8(ascii: "}"))
    }

    /// Writes a step that differs from the defaults as an object: its action count and what
    /// differs. `nameIndex` gives a name's index in the names table, adding it. Returns the
    /// nesting it reaches.
    private func writeStep(
        _ step: SavedStep, after previous: Int, previousName: String, into steps: inout JSONBytes,
        nameIndex: (String) throws -> Int
    ) throws -> Int {
        steps.raw(#"{"a":"#)
        steps.int(step.actionList.count)
        if step.actionName != previousName {
            steps.raw(#","n":"#)
            steps.int(try nameIndex(step.actionName))
        }
        if step.node != previous &+ 1 {
            steps.raw(#","node":"#)
            steps.int(step.node)
        }
        if step.parent != previous {
            steps.raw(#","parent":"#)
            steps.int(step.parent)
        }
        if step.isRedoChoice != (step.parent == previous) {
            steps.raw(#","redo":"#)
            steps.bool(step.isRedoChoice)
        }
        if let date = step.date {
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else { throw Self.notFinite(date, "the date of node \(step.node)") }
            steps.raw(#","d":"#)
            steps.double(seconds)
        }
        if step.isDiscardable { steps.raw(#","discardable":true"#) }
        guard !step.userInfo.isEmpty else {
            steps.byte(UInt8(ascii: "}"))
            return 5
        }
        steps.raw(#","userInfo":{"#)
        try Self.writeUserInfo(step.userInfo, of: step.node, into: &steps, limits: limits)
        steps.raw("}}")
        return 7
    }

    /// The error of an action without its command (read back with a problem): it cannot be written.
    static func unwritable(_ action: SavedAction, history name: String, node: Int) -> EncodingError {
        let why = action.problem.map { "\($0)" } ?? "no command"
        return EncodingError.invalidValue(
            action,
            EncodingError.Context(
                codingPath: [],
                debugDescription:
                    "history \"\(HistoryArchiveError.shortened(name, to: 40))\", node \(node): an action that was not "
                    + "read back (\(why)) cannot be written"))
    }

    /// Writes a step's user info, as an archive and a journal record both hold it: each key (in
    /// order) with its value's kind and value.
    ///
    /// - Throws: ``HistoryArchiveError/tooLarge(_:maximum:)`` for a key over `limits`,
    ///   `EncodingError` for a double or date that is not finite.
    static func writeUserInfo(
        _ userInfo: [String: SavedValue], of node: Int, into steps: inout JSONBytes, limits: HistoryArchive.Limits
    ) throws {
        for (index, key) in userInfo.keys.sorted().enumerated() {
            try limits.check(key)
            if index > 0 { steps.byte(UInt8(ascii: ",")) }
            steps.string(key)
            steps.raw(#":{""#)
            switch userInfo[key]! {
            case .string(let value):
                steps.raw(#"string":"#)
                steps.string(value)
            case .int(let value):
                steps.raw(#"int":"#)
                steps.int(value)
            case .double(let value):
                guard value.isFinite else { throw Self.notFinite(value, "user-info value \"\(key)\" of node \(node)") }
                steps.raw(#"double":"#)
                steps.double(value)
            case .bool(let value):
                steps.raw(#"bool":"#)
                steps.bool(value)
            case .date(let value):
                let seconds = value.timeIntervalSinceReferenceDate
                guard seconds.isFinite else {
                    throw Self.notFinite(value, "user-info value \"\(key)\" of node \(node)")
                }
                steps.raw(#"date":"#)
                steps.double(seconds)
            case .data(let value):
                steps.raw(#"data":"#)
                steps.string(value.base64EncodedString())
            }
            steps.byte(UInt8(ascii: "}"))
        }
    }

    /// The error of a double or date that is not finite, at `place`.
    static func notFinite(_ value: Any, _ place: String) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: [], debugDescription: "\(HistoryArchiveError.shortened(place)) is not a finite number"))
    }
}

// MARK: - Reading

/// Reads an archive: the envelope, then each history in version 2, or the whole file through the
/// version 1 reader.
enum ArchiveReader {
    static func read(
        _ data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits
    ) throws(HistoryArchiveError) -> HistoryArchive {
        let result = data.withUnsafeBytes {
            (bytes: UnsafeRawBufferPointer) -> Result<HistoryArchive, HistoryArchiveError> in
            do throws(HistoryArchiveError) {
                return .success(try read(bytes, data: data, registry: registry, limits: limits))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The archive error for a cursor's failure.
    static func error(_ failure: JSONCursor.Failure, limits: HistoryArchive.Limits) -> HistoryArchiveError {
        switch failure {
        case .notAnObject: .notAnArchive
        case .tooDeep: .tooLarge(.nestingDepth, maximum: limits.maximumNestingDepth)
        case .invalid(let reason): .corrupt(reason)
        }
    }

    private static func read(
        _ bytes: UnsafeRawBufferPointer, data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits
    ) throws(HistoryArchiveError) -> HistoryArchive {
        var cursor = JSONCursor(bytes, maximumDepth: limits.maximumNestingDepth)
        var format: String?
        var version: Int?
        var fingerprint: String?
        var histories: [String: SavedHistory]?
        var historiesOffset: Int?
        var versionIsInvalid = false
        do {
            guard cursor.peek() == UInt8(ascii: "{") else { throw JSONCursor.Failure.notAnObject }
            try cursor.beginObject()
            var envelope = JSONCursor.ObjectState()
            while let key = try cursor.nextKey(in: &envelope) {
                switch key {
                case "format":
                    if cursor.peek() == UInt8(ascii: "\"") {
                        format = try cursor.readString()
                    } else {
                        try cursor.skipValue()
                    }
                case "version":
                    // Read leniently: JSON that is not an archive may have a "version" of its own.
                    let start = cursor.peek()
                    if start == UInt8(ascii: "-")
                        || (start.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false),
                        let number = try? cursor.readInt()
                    {
                        version = number
                    } else {
                        versionIsInvalid = true
                        try cursor.skipValue()
                    }
                case "fingerprint":
                    fingerprint = try cursor.field(key) { cursor throws(JSONCursor.Failure) in try cursor.readString() }
                case "histories" where format == HistoryArchive.formatName && version == 2:
                    histories = try readHistories(&cursor, data: data, registry: registry, limits: limits)
                case "histories":
                    // Before the format and version (a version 1 file, whose keys are sorted): read
                    // once they are known.
                    _ = cursor.peek()
                    historiesOffset = cursor.offset
                    try cursor.skipValue()
                default:
                    try cursor.skipValue()
                }
            }
            try cursor.end()
        } catch let failure as JSONCursor.Failure {
            throw Self.error(failure, limits: limits)
        } catch let error as HistoryArchiveError {
            throw error
        } catch {
            throw .corrupt("\(error)")
        }
        guard format == HistoryArchive.formatName else { throw .notAnArchive }
        guard !versionIsInvalid else { throw .corrupt("the format version is not a whole number") }
        guard let version else { throw .corrupt("the archive has no \"version\"") }
        guard version <= HistoryArchive.formatVersion else {
            throw .newerFormatVersion(version, newestSupported: HistoryArchive.formatVersion)
        }
        guard version >= 1 else { throw .corrupt("format version \(version)") }
        if version == 1 {
            // The cursor has checked every byte of the file.
            return try HistoryArchive.readVersion1(data, registry: registry, limits: limits)
        }
        guard let fingerprint else { throw .corrupt("the archive has no \"fingerprint\"") }
        try limits.check(fingerprint)
        if histories == nil, let historiesOffset {
            var second = JSONCursor(bytes, at: historiesOffset, depth: 1, maximumDepth: limits.maximumNestingDepth)
            histories = try readHistories(&second, data: data, registry: registry, limits: limits)
        }
        guard let histories else { throw .corrupt("the archive has no \"histories\"") }
        return HistoryArchive(fingerprint: fingerprint, histories: histories)
    }

    private static func readHistories(
        _ cursor: inout JSONCursor, data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits
    ) throws(HistoryArchiveError) -> [String: SavedHistory] {
        var histories: [String: SavedHistory] = [:]
        var object = JSONCursor.ObjectState()
        do throws(JSONCursor.Failure) {
            try cursor.beginObject()
        } catch {
            throw Self.error(error, limits: limits)
        }
        while true {
            let name: String
            do throws(JSONCursor.Failure) {
                guard let next = try cursor.nextKey(in: &object) else { break }
                name = next
            } catch {
                throw Self.error(error, limits: limits)
            }
            try limits.check(histories.count + 1, .histories)
            try limits.check(name)
            var reader = HistoryReader(name: name, limits: limits)
            var history = try reader.read(&cursor, data: data, registry: registry)
            do {
                // The reader made every action with a version of 1 or more, a command or a problem,
                // and a cost of 0 or more.
                try history.validate(checkingActions: false)
            } catch {
                throw .invalidHistory(name, error)
            }
            history.isKnownValid = true
            histories[name] = history
        }
        return histories
    }
}

/// Reads one history of a version 2 archive.
struct HistoryReader {
    let name: String
    let limits: HistoryArchive.Limits

    typealias StepHeader = StepAssembler.Header

    var shape: ActionStack.HistoryShape?
    var root: Int?
    var current: Int?
    var clean: Int?
    var rootDate: Double?
    var omissions: [SavedHistory.Omission] = []
    var remoteVersion: String?
    var nextNode: Int?
    var steps: [StepHeader]?
    /// The command table, the actions' entries, the costs, the names and the payloads.
    var columns: CommandColumnsReader

    init(name: String, limits: HistoryArchive.Limits) {
        self.name = name
        self.limits = limits
        columns = CommandColumnsReader(limits: limits)
    }

    /// `what`, placed in the history: `history "board": what`.
    func corrupt(_ what: String) -> HistoryArchiveError {
        .corrupt("history \"\(HistoryArchiveError.shortened(name, to: 40))\": \(what)")
    }

    mutating func read(
        _ cursor: inout JSONCursor, data: Data, registry: CommandRegistry
    ) throws(HistoryArchiveError) -> SavedHistory {
        do {
            try readFields(&cursor)
        } catch let failure as JSONCursor.Failure {
            switch failure {
            case .invalid(let reason): throw corrupt(reason)
            default: throw ArchiveReader.error(failure, limits: limits)
            }
        } catch let error as HistoryArchiveError {
            throw error
        } catch let problem as SavedHistory.StructuralProblem {
            throw .invalidHistory(name, problem)
        } catch {
            throw corrupt("\(error)")
        }
        guard let shape else { throw corrupt("no \"shape\"") }
        guard let root else { throw corrupt("no \"root\"") }
        guard let current else { throw corrupt("no \"current\"") }
        guard let steps else { throw corrupt("no \"steps\"") }
        guard let actions = columns.actions else { throw corrupt("no \"actions\"") }
        guard let payloads = columns.payloads else { throw corrupt("no \"payloads\"") }
        let (commands, names, costs) = (columns.commands, columns.names, columns.costs)

        // The actions: one per action the steps hold, each naming an entry of the command table.
        var total = 0
        for step in steps { total += step.actionCount }
        try columns.check(actionTotal: total, problem: corrupt) { action, cost in
            // Named by the step's node, as validate() names it.
            var node = root
            var counted = 0
            var previous = root
            for step in steps {
                node = step.node ?? (previous &+ 1)
                counted += step.actionCount
                if counted > action { break }
                previous = node
            }
            return .invalidHistory(name, .negativeCost(node: node, cost: cost))
        }

        // The commands, in one call to JSONDecoder, each going straight into its step.
        var resolutions: [CommandRegistry.Resolution] = []
        resolutions.reserveCapacity(commands.count)
        var entries: [StepAssembler.Entry] = []
        entries.reserveCapacity(commands.count)
        for command in commands {
            let resolution = registry.resolve(command.type, version: command.version)
            var readVersion = command.version
            if case .migrate(let registered, _) = resolution { readVersion = registered.version }
            resolutions.append(resolution)
            entries.append(
                StepAssembler.Entry(
                    type: command.type, version: command.version, readVersion: readVersion, key: command.key))
        }
        let plan = CommandPayloadPlan(
            resolutions: resolutions, names: commands.map(\.type), entries: actions,
            steps: StepAssembler.Parts(
                history: name, root: root, headers: steps, names: names, entries: entries, actions: actions,
                costs: costs))
        let decoder = JSONDecoder()
        decoder.userInfo[CommandPayloadPlan.key] = plan
        let saved: [SavedStep]
        do {
            let slice = data[(data.startIndex + payloads.lowerBound)..<(data.startIndex + payloads.upperBound)]
            saved = try decoder.decode(CommandPayloadReader.self, from: slice).steps
        } catch let error as HistoryArchiveError {
            throw error
        } catch {
            throw corrupt("payloads: \(CommandRegistry.reason(for: error))")
        }
        var history = SavedHistory(
            shape: shape, root: root, current: current, clean: clean, steps: saved,
            rootDate: rootDate.map(Date.init(timeIntervalSinceReferenceDate:)), omissions: omissions,
            remoteVersion: remoteVersion)
        history.nextNode = nextNode
        return history
    }

    private mutating func readFields(_ cursor: inout JSONCursor) throws {
        try cursor.beginObject()
        var object = JSONCursor.ObjectState()
        while let key = try cursor.nextKey(in: &object) {
            do {
                try readField(key, &cursor)
            } catch let failure as JSONCursor.Failure {
                guard case .invalid(let reason) = failure else { throw failure }
                throw JSONCursor.Failure.invalid("\"\(HistoryArchiveError.shortened(key, to: 40))\": \(reason)")
            }
        }
    }

    private mutating func readField(_ key: String, _ cursor: inout JSONCursor) throws {
        switch key {
        case "shape":
            switch try cursor.readString() {
            case "linear": shape = .linear
            case "tree": shape = .tree
            case let other:
                throw cursor.invalid("unknown shape \"\(HistoryArchiveError.shortened(other, to: 40))\"")
            }
        case "root": root = try cursor.readInt()
        case "current": current = try cursor.readInt()
        case "clean":
            if cursor.peek() == UInt8(ascii: "n") { try cursor.skipValue() } else { clean = try cursor.readInt() }
        case "rootDate": rootDate = try cursor.readDouble()
        case "omitted": try readOmissions(&cursor)
        case "remoteVersion":
            let version = try cursor.readString()
            try check(version)
            remoteVersion = version
        case "nextNode": nextNode = try cursor.readInt()
        case "steps": try readSteps(&cursor)
        default:
            if try columns.readColumn(key, &cursor) { return }
            try cursor.skipValue()
        }
    }

    /// Checks the length of a name, key or type.
    private func check(_ string: String) throws {
        try limits.check(string)
    }

    /// What the save left out: `[reason, steps]` or `[reason, steps, step name]` entries. A reason
    /// this library does not know is kept as it is.
    private mutating func readOmissions(_ cursor: inout JSONCursor) throws {
        try cursor.beginArray()
        var array = JSONCursor.ArrayState()
        while try cursor.nextElement(in: &array) {
            try cursor.beginArray()
            var entry = JSONCursor.ArrayState()
            guard try cursor.nextElement(in: &entry) else { throw cursor.invalid("an empty omission") }
            let reason = try cursor.readString()
            try check(reason)
            guard try cursor.nextElement(in: &entry) else { throw cursor.invalid("an omission without a count") }
            let steps = try cursor.readInt()
            guard steps >= 0 else { throw cursor.invalid("an omission of a negative number of steps") }
            var name: String?
            if try cursor.nextElement(in: &entry) {
                let read = try cursor.readString()
                try check(read)
                name = read
                guard try !cursor.nextElement(in: &entry) else { throw cursor.invalid("an omission of four values") }
            }
            omissions.append(SavedHistory.Omission(reason: .init(rawValue: reason), steps: steps, stepName: name))
        }
    }

    private mutating func readSteps(_ cursor: inout JSONCursor) throws {
        var list: [StepHeader] = []
        try cursor.beginArray()
        var array = JSONCursor.ArrayState()
        while try cursor.nextElement(in: &array) {
            try limits.check(list.count + 1, .steps)
            if let count = cursor.readSmallCount() {
                // The common step: its number of actions alone, a single digit.
                try limits.check(count, .actionsPerStep)
                list.append(StepHeader(actionCount: count))
                continue
            }
            do {
                if cursor.peek() == UInt8(ascii: "{") {
                    list.append(try readStep(&cursor))
                } else {
                    let count = try cursor.readInt()
                    try checkActionCount(count, &cursor)
                    list.append(StepHeader(actionCount: count))
                }
            } catch let failure as JSONCursor.Failure {
                guard case .invalid(let reason) = failure else { throw failure }
                throw JSONCursor.Failure.invalid("step \(array.index): \(reason)")
            }
        }
        steps = list
    }

    private func checkActionCount(_ count: Int, _ cursor: inout JSONCursor) throws {
        guard count >= 0 else { throw cursor.invalid("a negative number of actions") }
        try limits.check(count, .actionsPerStep)
    }

    private func readStep(_ cursor: inout JSONCursor) throws -> StepHeader {
        try cursor.beginObject()
        var object = JSONCursor.ObjectState()
        var step = StepHeader(actionCount: -1)
        while let key = try cursor.nextKey(in: &object) {
            switch key {
            case "a":
                step.actionCount = try cursor.readInt()
                try checkActionCount(step.actionCount, &cursor)
            case "n": step.name = try cursor.readInt()
            case "node": step.node = try cursor.readInt()
            case "parent": step.parent = try cursor.readInt()
            case "redo": step.isRedoChoice = try cursor.readBool()
            case "d": step.date = try cursor.readDouble()
            case "discardable": step.isDiscardable = try cursor.readBool()
            case "userInfo": step.userInfo = try Self.readUserInfo(&cursor, limits: limits)
            default: try cursor.skipValue()
            }
        }
        guard step.actionCount >= 0 else { throw cursor.invalid("a step without \"a\"") }
        return step
    }

    /// Reads a step's user info, as an archive and a journal record both hold it (see
    /// ``ArchiveWriter/writeUserInfo(_:of:into:limits:)``), within `limits`.
    static func readUserInfo(_ cursor: inout JSONCursor, limits: HistoryArchive.Limits) throws -> [String: SavedValue] {
        var userInfo: [String: SavedValue] = [:]
        try cursor.beginObject()
        var object = JSONCursor.ObjectState()
        while let key = try cursor.nextKey(in: &object) {
            try limits.check(userInfo.count + 1, .userInfoEntries)
            try limits.check(key)
            try cursor.beginObject()
            var value = JSONCursor.ObjectState()
            guard let kind = try cursor.nextKey(in: &value) else {
                throw cursor.invalid("user-info value \"\(HistoryArchiveError.shortened(key, to: 40))\" has no kind")
            }
            switch kind {
            case "string": userInfo[key] = .string(try cursor.readString())
            case "int": userInfo[key] = .int(try cursor.readInt())
            case "double": userInfo[key] = .double(try cursor.readDouble())
            case "bool": userInfo[key] = .bool(try cursor.readBool())
            case "date": userInfo[key] = .date(Date(timeIntervalSinceReferenceDate: try cursor.readDouble()))
            case "data":
                guard let data = Data(base64Encoded: try cursor.readString()) else {
                    throw cursor.invalid(
                        "user-info value \"\(HistoryArchiveError.shortened(key, to: 40))\" is not base64")
                }
                userInfo[key] = .data(data)
            default:
                throw cursor.invalid(
                    "user-info value \"\(HistoryArchiveError.shortened(key, to: 40))\" has the unknown kind \"\(HistoryArchiveError.shortened(kind, to: 40))\""
                )
            }
            guard try cursor.nextKey(in: &value) == nil else {
                throw cursor.invalid("user-info value \"\(HistoryArchiveError.shortened(key, to: 40))\" has two kinds")
            }
        }
        return userInfo
    }
}
