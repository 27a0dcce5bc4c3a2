// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

package import ActionStack
package import Foundation

/// Reads `data` as a history archive with `registry`: the archive, or the error reading threw.
///
/// A result rather than a throwing call, so that a test can check what a hostile input gives
/// (`.failureValue == .tooLarge(...)`) in one expression.
///
/// - Parameters:
///   - data: The archive's bytes.
///   - registry: The commands the archive may hold.
///   - limits: The reader's limits.
/// - Returns: The archive read, or the error.
package func decodedArchive(
    _ data: Data, registry: CommandRegistry, limits: HistoryArchive.Limits = .default
) -> Result<HistoryArchive, HistoryArchiveError> {
    do throws(HistoryArchiveError) {
        return .success(try HistoryArchive(decoding: data, registry: registry, limits: limits))
    } catch {
        return .failure(error)
    }
}

/// Reads the UTF-8 of `json` as a history archive with `registry`: the archive, or the error.
package func decodedArchive(
    _ json: String, registry: CommandRegistry, limits: HistoryArchive.Limits = .default
) -> Result<HistoryArchive, HistoryArchiveError> {
    decodedArchive(Data(json.utf8), registry: registry, limits: limits)
}

extension Result {
    /// The error of a failure; nil for a success.
    package var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The archive of `history` alone, as bytes: two histories are the same when their bytes are, so a
/// test compares a recovery with a full save, or two stacks' saves, in one expression.
///
/// - Parameter history: The history to encode, under the recorder's default name.
/// - Returns: The encoded archive.
/// - Throws: The error encoding threw (a command that could not be encoded).
package func bytes(_ history: SavedHistory) throws -> Data {
    try HistoryArchive(fingerprint: "doc", histories: [HistoryRecorder.defaultHistoryName: history]).encoded()
}
