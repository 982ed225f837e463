/// A small, fast, seedable generator (xoshiro256**, seeded through SplitMix64), so every model
/// draw is reproducible from the run's seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    public mutating func next() -> UInt64 {
        let result = Self.rotateLeft(state.1 &* 5, by: 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = Self.rotateLeft(state.3, by: 45)
        return result
    }

    /// A uniform draw in [0, 1).
    public mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal draw (Box-Muller).
    public mutating func standardNormal() -> Double {
        let u1 = 1 - unitInterval()
        let u2 = unitInterval()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// An independent generator for a sub-model, so adding draws in one model does not shift
    /// another's sequence.
    public mutating func fork() -> SeededRandom {
        SeededRandom(seed: next())
    }

    /// Static and always inlined: as an instance method it stayed a call of its own, handed the
    /// generator's state, on every draw (the model engine draws for every chunk it sends).
    @inline(__always)
    private static func rotateLeft(_ value: UInt64, by amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
