/// Which built-in radio plays each measurement of the SIGCOMM'21 study's layout, by what the
/// file's own columns say it measured (docs/fidelity.md has the table):
/// - a probe file, by `carrier` and `enabled_radio_type`;
/// - a transfer row (MN-Transfer, Verizon, a phone standing still), by `network type`: the
///   stationary radios `verizon-lte`, `verizon-nsa-low` and `verizon-nsa-mmwave`;
/// - a walking-loop second (MN-Wild), by `provider`, `nrStatus` and `radio_type_used`:
///   Verizon's walking radios (`verizon-lte-walking`, `verizon-nsa-walking`: the study's
///   Verizon loops mix NSA low-band and mmWave seconds with no column that tells them apart,
///   and draw 0.6-1.1 W more than the transfers), T-Mobile's `tmobile-lte`, `tmobile-nsa`
///   and `tmobile-sa`.
public enum StudyRadios {
    /// The radio of a probe file, from its carrier and access labels; nil for a pair the study
    /// did not measure.
    public static func probeRadio(carrier: String?, access: String?) -> String? {
        guard let carrier = carrier.map(PowerLog.carrierLabel), let access else { return nil }
        let technology: String
        switch access {
        case "4G-LTE": technology = "lte"
        case "5G-NSA-Low-Band": technology = carrier == "verizon" ? "nsa-low" : "nsa"
        case "5G-NSA-mmWave": technology = "nsa-mmwave"
        case "5G-SA-Low-Band": technology = "sa"
        default: return nil
        }
        return "\(carrier)-\(technology)"
    }

    /// The radio of a power sample from a study file, from its labels.
    public static func sampleRadio(_ labels: [String: String]) -> String? {
        guard let carrier = labels["carrier"], let access = labels["access"] else { return nil }
        if let band = labels["band"] {
            // A transfer: the phone stood still.
            switch (carrier, band) {
            case ("verizon", "lte"): return "verizon-lte"
            case ("verizon", "low"): return "verizon-nsa-low"
            case ("verizon", "mmwave"): return "verizon-nsa-mmwave"
            default: return nil
            }
        }
        switch (carrier, access) {
        case ("verizon", "lte"): return "verizon-lte-walking"
        case ("verizon", "nr-nsa"): return "verizon-nsa-walking"
        case ("tmobile", "lte"): return "tmobile-lte"
        case ("tmobile", "nr-nsa"): return "tmobile-nsa"
        case ("tmobile", "nr-sa"): return "tmobile-sa"
        default: return nil
        }
    }
}
