// This source file is part of the ActionStack open source project
//
// Copyright (c) 2026 the ActionStack project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Workloads

#if canImport(Glibc)
    import Glibc
#endif

/// Nanoseconds taken by `body`.
func nanoseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Runs the bodies `repetitions` times in turn (A B C, A B C, ...) and returns the median of each.
///
/// Interleaving puts each figure and its baselines under the same load, so a burst of noise from
/// the shared machine lands on all of them rather than on one; the ratios are what to read.
func measureTogether(_ repetitions: Int, _ bodies: [() -> Double]) -> [Double] {
    var samples = [[Double]](repeating: [], count: bodies.count)
    for _ in 0..<repetitions {
        for (index, body) in bodies.enumerated() { samples[index].append(body()) }
    }
    return samples.map(median)
}

/// Resident memory of this process now, in bytes.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Peak resident memory of this process, in bytes (VmHWM).
func peakResidentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
        return (number.flatMap { Int($0) } ?? 0) * 1024
    }
    return 0
}

/// One figure of a row set against one baseline measured in the same run.
struct Comparison: Encodable {
    /// What the baseline is.
    var baseline: String
    /// Median ns per action of the baseline (or bytes per action for memory rows).
    var baselineValue: Double
    /// The row's figure / the baseline's.
    var ratio: Double
    /// The target for this ratio, if it sets one.
    var target: String?
}

/// One row of the ratio table.
struct Row: Encodable {
    var scenario: String
    var variant: String
    var n: Int
    /// Median ns per action of ActionStack (NaN for memory rows).
    var nsPerAction: Double
    /// Peak resident bytes per stored action, where measured.
    var bytesPerAction: Double?
    /// The baselines, the first one being the row's main one.
    var comparisons: [Comparison]
    var note: String

    // The first comparison under the names the table had before it had several baselines.
    var baselineName: String { comparisons.first?.baseline ?? "" }
    var baselineNsPerAction: Double { comparisons.first?.baselineValue ?? .nan }
    var ratio: Double { comparisons.first?.ratio ?? .nan }

    enum CodingKeys: String, CodingKey {
        case scenario, variant, n, nsPerAction, bytesPerAction, comparisons, note
        case baselineName, baselineNsPerAction, ratio
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(variant, forKey: .variant)
        try container.encode(n, forKey: .n)
        try container.encode(nsPerAction, forKey: .nsPerAction)
        try container.encodeIfPresent(bytesPerAction, forKey: .bytesPerAction)
        try container.encode(comparisons, forKey: .comparisons)
        try container.encode(note, forKey: .note)
        try container.encode(baselineName, forKey: .baselineName)
        try container.encode(baselineNsPerAction, forKey: .baselineNsPerAction)
        try container.encode(ratio, forKey: .ratio)
    }
}

/// Formats a number for the tables.
func format(_ value: Double, _ decimals: Int = 1) -> String {
    value.isNaN ? "-" : String(format: "%.\(decimals)f", value)
}

/// Formats a ratio: two decimals, none from 100 on.
func formatRatio(_ ratio: Double) -> String {
    format(ratio, ratio >= 100 ? 0 : 2) + "x"
}

/// Prints cells in fixed-width columns: the first `leftAligned` columns left-aligned, the rest
/// right-aligned, and anything past the widths appended as is.
func printCells(_ cells: [String], widths: [Int], leftAligned: Set<Int>) {
    var line = ""
    for (index, cell) in cells.enumerated() {
        guard index < widths.count else {
            line += "  " + cell
            continue
        }
        let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
        line += leftAligned.contains(index) ? cell + pad + " " : pad + cell + " "
    }
    while line.hasSuffix(" ") { line.removeLast() }
    print(line)
}

/// Writes `value` as pretty, sorted JSON (NaN and infinities as strings).
func writeJSON(_ value: some Encodable, to path: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do {
        try encoder.encode(value).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    } catch {
        print("could not write \(path): \(error)")
        exit(1)
    }
}
