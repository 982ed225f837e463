/// HPACK's static Huffman code (RFC 7541, Appendix B), for reading `:authority` from the
/// first HTTP/2 request of a connection, which clients usually Huffman-encode.
///
/// The code is canonical: codes of each length are consecutive, in symbol order, shorter lengths
/// first. So the table is only each symbol's code length (256 octets, then EOS), and decoding
/// walks lengths with the canonical first-code arithmetic instead of a 257-entry code list.
enum HPACKHuffman {
    private static let codeLengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    ]
    private static let endOfString = 256

    /// Per code length: the first code of that length, how many codes have it, and where its
    /// symbols start in `symbolsByCode`.
    private static let canonical: (firstCode: [UInt32], count: [Int], firstIndex: [Int], symbolsByCode: [Int]) = {
        let maximumLength = 30
        var count = [Int](repeating: 0, count: maximumLength + 1)
        for length in codeLengths { count[Int(length)] += 1 }
        let symbolsByCode = codeLengths.indices.sorted { (codeLengths[$0], $0) < (codeLengths[$1], $1) }
        var firstCode = [UInt32](repeating: 0, count: maximumLength + 1)
        var firstIndex = [Int](repeating: 0, count: maximumLength + 1)
        var code: UInt32 = 0
        var index = 0
        for length in 1...maximumLength {
            firstCode[length] = code
            firstIndex[length] = index
            code = (code + UInt32(count[length])) << 1
            index += count[length]
        }
        return (firstCode, count, firstIndex, symbolsByCode)
    }()

    /// The decoded octets, or nil for an invalid encoding (an EOS symbol, padding longer than
    /// 7 bits or not all ones).
    static func decode(_ encoded: UnsafeRawBufferPointer) -> [UInt8]? {
        let table = canonical
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count * 8 / 5)
        var code: UInt32 = 0
        var length = 0
        for byte in encoded {
            for bit in (0..<8).reversed() {
                code = code << 1 | UInt32(byte >> UInt8(bit) & 1)
                length += 1
                guard length <= 30 else { return nil }
                let offset = Int(code) - Int(table.firstCode[length])
                if offset >= 0, offset < table.count[length] {
                    let symbol = table.symbolsByCode[table.firstIndex[length] + offset]
                    guard symbol != endOfString else { return nil }
                    output.append(UInt8(symbol))
                    code = 0
                    length = 0
                }
            }
        }
        // What is left must be a prefix of EOS: at most 7 one bits.
        guard length <= 7, code == (1 << UInt32(length)) - 1 else { return nil }
        return output
    }
}
