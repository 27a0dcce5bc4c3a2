// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The module and its main class are both named `ActionStack`. In a client, `ActionStack.X` names a
// member of the class, not a type of the module, so without these aliases a qualified name such as
// `ActionStack.TitleTemplates` fails ("'TitleTemplates' is not a member type of class
// 'ActionStack.ActionStack'"). Each public top-level type of the module has an alias here, so both
// spellings work. A new public top-level type gets its alias here, and a use in
// Tests/QualifiedNameTests.
//
// `ActionStack::X` is a module selector (Swift 6.3): the module's `X`, not this alias, which would
// otherwise refer to itself.

extension ActionStack {
    /// The module's ``/ActionStack/TitleTemplates``, so that clients can write
    /// `ActionStack.TitleTemplates` (the module and this class share the name `ActionStack`).
    public typealias TitleTemplates = ActionStack::TitleTemplates

    /// The module's ``/ActionStack/AutomaticGroupClosing``, so that clients can write
    /// `ActionStack.AutomaticGroupClosing` (the module and this class share the name `ActionStack`).
    public typealias AutomaticGroupClosing = ActionStack::AutomaticGroupClosing

    /// The module's ``/ActionStack/ActionStackGroup``, so that clients can write
    /// `ActionStack.ActionStackGroup` (the module and this class share the name `ActionStack`).
    public typealias ActionStackGroup = ActionStack::ActionStackGroup

    /// The module's ``/ActionStack/ActionStackModel``, so that clients can write
    /// `ActionStack.ActionStackModel` (the module and this class share the name `ActionStack`).
    public typealias ActionStackModel = ActionStack::ActionStackModel

    /// The module's ``/ActionStack/ObservationToken``, so that clients can write
    /// `ActionStack.ObservationToken` (the module and this class share the name `ActionStack`).
    public typealias ObservationToken = ActionStack::ObservationToken
}
