import Foundation
import NetsimCore

/// The number formats every report (`bench`, `analyze`, `tune`; text, Markdown and HTML) writes
/// figures with, so a figure with a unit reads the same wherever it appears: a fixed number of
/// decimals, then a space and the unit. Each report keeps the precision its tables need.
public enum ReportNumber {
    /// `value` with exactly `decimals` decimals.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    public static func seconds(_ value: Double, decimals: Int) -> String { fixed(value, decimals: decimals) + " s" }
    public static func joules(_ value: Double, decimals: Int) -> String { fixed(value, decimals: decimals) + " J" }
    public static func milliwatts(_ value: Double, decimals: Int) -> String { fixed(value, decimals: decimals) + " mW" }
    /// A share (0.25) as a percentage ("25.0%").
    public static func percent(_ share: Double, decimals: Int) -> String { fixed(share * 100, decimals: decimals) + "%" }

    /// How gates and baselines print a figure: whole numbers as they are, large ones without
    /// decimals, small ones to four significant digits.
    public static func gate(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return abs(value) >= 1000 ? String(format: "%.0f", value) : String(format: "%.4g", value)
    }
}
