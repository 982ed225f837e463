import Foundation
import NetsimCore

extension [String] {
    /// The words as a POSIX shell would read them back: each word that holds anything but
    /// letters, digits and `@%+=:,./_-` is single-quoted, an inner quote written `'\''`, and
    /// an empty word is `''`. A report's or a gate's name for `netsim run -- sh -c 'sleep 1'`
    /// then says `sh -c 'sleep 1'`, which can be pasted, not `sh -c sleep 1`, which runs
    /// something else.
    public var shellQuoted: String {
        map { word in
            let plain =
                !word.isEmpty
                && word.unicodeScalars.allSatisfy { scalar in
                    scalar.isASCII
                        && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
                }
            return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
    }
}
