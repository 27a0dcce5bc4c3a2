// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

/// The wording of Undo and Redo titles, with the action name anywhere in the sentence.
///
/// ```swift
/// stack.titleTemplates = TitleTemplates(
///     undo: "Annuler « {name} »", redo: "Rétablir « {name} »",
///     undoWithoutName: "Annuler", redoWithoutName: "Rétablir"
/// )
/// print(stack.undoMenuTitle(forUndoActionName: "Déplacer"))   // Annuler « Déplacer »
/// ```
public struct TitleTemplates: Hashable, Sendable {
    /// The placeholder that the action name replaces: `{name}`.
    public static let placeholder = "{name}"

    /// English, as Foundation: "Undo {name}", "Redo {name}", "Undo", "Redo".
    public static let english = TitleTemplates(
        undo: "Undo {name}",
        redo: "Redo {name}",
        undoWithoutName: "Undo",
        redoWithoutName: "Redo"
    )

    /// The Undo title for a named step; `{name}` is replaced by the action name.
    public var undo: String
    /// The Redo title for a named step; `{name}` is replaced by the action name.
    public var redo: String
    /// The Undo title when there is nothing to undo or the step has no name.
    public var undoWithoutName: String
    /// The Redo title when there is nothing to redo or the step has no name.
    public var redoWithoutName: String

    /// Creates templates.
    /// - Parameters:
    ///   - undo: The Undo title for a named step, with `{name}` where the name goes.
    ///   - redo: The Redo title for a named step, with `{name}` where the name goes.
    ///   - undoWithoutName: The plain Undo title.
    ///   - redoWithoutName: The plain Redo title.
    public init(undo: String, redo: String, undoWithoutName: String, redoWithoutName: String) {
        self.undo = undo
        self.redo = redo
        self.undoWithoutName = undoWithoutName
        self.redoWithoutName = redoWithoutName
    }

    /// The Undo title for `actionName` (the plain one when the name is empty).
    /// - Parameter actionName: The step's name.
    /// - Returns: The title.
    /// - Complexity: O(m) for the m characters of the template and the name.
    public func undoTitle(for actionName: String) -> String {
        actionName.isEmpty ? undoWithoutName : Self.fill(undo, with: actionName)
    }

    /// The Redo title for `actionName` (the plain one when the name is empty).
    /// - Parameter actionName: The step's name.
    /// - Returns: The title.
    /// - Complexity: O(m) for the m characters of the template and the name.
    public func redoTitle(for actionName: String) -> String {
        actionName.isEmpty ? redoWithoutName : Self.fill(redo, with: actionName)
    }

    /// `template` with every `{name}` replaced by `name`, matched by Unicode scalars, so that a
    /// combining mark right after the placeholder (which joins its brace in one character) does
    /// not hide it.
    ///
    /// - Complexity: O(m) for the m scalars of the template and the name.
    private static func fill(_ template: String, with name: String) -> String {
        let scalars = template.unicodeScalars
        let placeholder = placeholder.unicodeScalars
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index != scalars.endIndex {
            if scalars[index...].starts(with: placeholder) {
                result.append(contentsOf: name.unicodeScalars)
                index = scalars.index(index, offsetBy: placeholder.count)
            } else {
                result.append(scalars[index])
                index = scalars.index(after: index)
            }
        }
        return String(result)
    }
}
