import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A model that every action does real work on, checked after each phase so nothing is
/// optimised away.
final class Model {
    var value = 0
}

/// Stops the run when a check fails: a benchmark whose work is wrong measures nothing.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        print("CHECK FAILED: \(message())")
        exit(1)
    }
}

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

/// One row of the results table.
struct Row: Encodable {
    var scenario: String
    var variant: String
    var n: Int
    /// Median ns per action of ActionStack.
    var nsPerAction: Double
    /// Median ns per action of the baseline, measured in the same run.
    var baselineNsPerAction: Double
    var baselineName: String
    /// nsPerAction / baselineNsPerAction.
    var ratio: Double { nsPerAction / baselineNsPerAction }
    /// Peak resident bytes per stored action, where measured.
    var bytesPerAction: Double?
    var baselineBytesPerAction: Double?
    var note: String

    enum CodingKeys: String, CodingKey {
        case scenario, variant, n, nsPerAction, baselineNsPerAction, baselineName, bytesPerAction
        case baselineBytesPerAction, note, ratio
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(variant, forKey: .variant)
        try container.encode(n, forKey: .n)
        try container.encode(nsPerAction, forKey: .nsPerAction)
        try container.encode(baselineNsPerAction, forKey: .baselineNsPerAction)
        try container.encode(baselineName, forKey: .baselineName)
        try container.encode(ratio, forKey: .ratio)
        try container.encodeIfPresent(bytesPerAction, forKey: .bytesPerAction)
        try container.encodeIfPresent(baselineBytesPerAction, forKey: .baselineBytesPerAction)
        try container.encode(note, forKey: .note)
    }
}
