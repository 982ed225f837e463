import ArgumentParser
import NetsimPcap

/// `netsim analyze --counters`: which columns of a traffic counter CSV hold the time, the
/// bytes and the radio access, and which radio prices each access value.
struct CounterOptions: ParsableArguments {
    @Flag(help: "FILE is a CSV of traffic counters (per-interval or cumulative byte counts), not a capture.")
    var counters = false

    @Option(help: "The time column. Default: timestamp.")
    var timeColumn = "timestamp"

    @Option(
        help:
            "How times are written: auto (a number is seconds, else a timestamp), seconds, milliseconds, timestamp (2021-01-07 18:19:50[.fff][Z|+hh:mm])."
    )
    var timeFormat = CounterTimeFormat.auto

    @Option(help: "The column of bytes received (downlink). Default: rx.")
    var rxColumn = "rx"

    @Option(help: "The column of bytes sent (uplink). Default: tx.")
    var txColumn = "tx"

    @Flag(help: "Each row counts the bytes of its own interval (from its time to the next row's). Default: cumulative counters.")
    var perInterval = false

    @Option(
        help: "With --per-interval: how long the last row's interval lasts, e.g. 1s. Default: as long as the one before.",
        transform: { try parseDuration($0) })
    var interval: Double?

    @Option(help: "The column giving each interval's radio access (e.g. nrStatus). Default: none, one radio throughout.")
    var accessColumn: String?

    @Option(
        help: ArgumentHelp(
            "An access value and the radio that prices it, e.g. CONNECTED=nr-nsa (repeatable). Values not named take --radio or --profile's radio.",
            valueName: "value=radio"),
        transform: { text in
            guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
                throw ValidationError("--access-radio: '\(text)' is not VALUE=RADIO")
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        })
    var accessRadio: [(value: String, radio: String)] = []

    /// Checks the counter options only go with `--counters`, and name radios that exist.
    func validate() throws {
        let given =
            timeColumn != "timestamp" || timeFormat != .auto || rxColumn != "rx" || txColumn != "tx" || perInterval
            || interval != nil || accessColumn != nil || !accessRadio.isEmpty
        if given, !counters { throw ValidationError("the counter options (--rx-column, --access-column, ...) need --counters") }
        if interval != nil, !perInterval {
            throw ValidationError("--interval is the last row's length of per-interval counters: add --per-interval")
        }
        if !accessRadio.isEmpty, accessColumn == nil {
            throw ValidationError("--access-radio maps values of --access-column: name the column")
        }
        for mapping in accessRadio where AnalyzeCommand.radioParameters(named: mapping.radio) == nil {
            throw ValidationError(
                "--access-radio \(mapping.value)=\(mapping.radio): '\(mapping.radio)' is not one of \(AnalyzeCommand.radioNames.joined(separator: ", "))"
            )
        }
    }

    var format: CounterFormat {
        CounterFormat(
            timeColumn: timeColumn, timeFormat: timeFormat, rxColumn: rxColumn, txColumn: txColumn, cumulative: !perInterval,
            accessColumn: accessColumn, lastInterval: interval)
    }
}

extension CounterTimeFormat: ExpressibleByArgument {}
