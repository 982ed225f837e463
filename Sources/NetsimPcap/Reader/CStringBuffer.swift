extension String {
    /// The text in a C character buffer up to its first NUL (libpcap's error buffer,
    /// `inet_ntop`'s output).
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
