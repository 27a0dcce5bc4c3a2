// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

// The umbrella module: `import ActionStack` brings in the whole library, as it did when the library
// was one module. The library's code is in two modules besides this one, so that the compiler keeps
// the boundary between them: ActionStackCore (the class `ActionStack`, Foundation's behaviour and
// the features beyond it, the saved-history values, the command protocols, save and restore, and the
// recorded history's values and their maker, Records/) and ActionStackArchive (the format layer: the
// history archive, the command registry, the journal, the file store and the recorder), which
// reaches the core through its public API, those record values and a few `package` hooks, never the
// history's storage (CONTRIBUTING.md, Architecture). Both are re-exported here, so that every
// declaration a client names is found through `ActionStack`, and the documentation
// (ActionStack.docc, built from this module's symbol graph with the re-exported modules') keeps its
// `ActionStack` module name and links. An app that wants the core without the format layer imports
// the product ActionStackCore instead.

@_exported public import ActionStackArchive
@_exported public import ActionStackCore
