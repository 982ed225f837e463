/// Which of a run's phones (`netsim run --phones N`) a client's connection crosses. The rules,
/// in order:
/// 1. a forward rule that names a phone (`--forward LISTEN=UPSTREAM@phone-2`): that phone;
/// 2. a SOCKS5 client's username (RFC 1929) or an HTTP proxy client's `Proxy-Authorization`
///    user, `phone-K`: phone K; another name is refused, so a typo does not land on a phone
///    nobody watches;
/// 3. otherwise the client's source address: each address gets the next phone in the order the
///    addresses are first seen (the first phone 1, the second phone 2, ...), starting over at
///    phone 1 after phone N; an address keeps its phone for the whole run. Loopback clients
///    choose theirs by binding a source address (`curl --interface 127.0.0.2`).
///
/// Phones are numbered from 1, as users name them; one phone (the default) takes every client.
struct PhoneAssignment {
    /// The run's phones.
    let count: Int
    /// The phone of each source address seen, at most `addressLimit` of them.
    private var phonesByAddress: [IPAddressBytes: Int] = [:]

    /// The most source addresses remembered, so the table stays bounded whoever connects
    /// (`--allow-from` decides who may). A further address gets a phone from its bytes alone
    /// (`phone(hashing:)`): the same one at each of its connections.
    static let addressLimit = 4096

    /// The prefix of a phone's name (`phone-3`).
    static let namePrefix = "phone-"

    init(count: Int) {
        precondition(count >= 1, "a run has at least one phone")
        self.count = count
    }

    /// Why a client gets no phone.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case unknownName(String, count: Int)

        var description: String {
            switch self {
            case .unknownName(let name, let count):
                "'\(name.escapingControlCharacters)' names no phone: the names are \(PhoneAssignment.namePrefix)1 to \(PhoneAssignment.namePrefix)\(count)"
            }
        }
    }

    /// The phone (1 to `count`) `name` names: `phone-K` with K from 1 to `count`.
    func phone(named name: String) -> Int? {
        guard name.hasPrefix(Self.namePrefix), let number = Int(name.dropFirst(Self.namePrefix.count)),
            String(number) == name.dropFirst(Self.namePrefix.count), (1...count).contains(number)
        else { return nil }
        return number
    }

    /// The phone of a client that named `name` (a SOCKS5 or HTTP proxy user), if any, else of
    /// its source address. With one phone every client gets it, whatever it names.
    mutating func phone(forName name: String?, source: IPAddressBytes?) -> Result<Int, Refusal> {
        guard count > 1 else { return .success(1) }
        if let name {
            guard let phone = phone(named: name) else { return .failure(.unknownName(name, count: count)) }
            return .success(phone)
        }
        return .success(phone(forSource: source))
    }

    /// The phone of a client from `source` (rule 3). A client whose address is unknown (a Unix
    /// socket) gets phone 1.
    mutating func phone(forSource source: IPAddressBytes?) -> Int {
        guard count > 1, let source else { return 1 }
        if let known = phonesByAddress[source] { return known }
        guard phonesByAddress.count < Self.addressLimit else { return phone(hashing: source) }
        let phone = phonesByAddress.count % count + 1
        phonesByAddress[source] = phone
        return phone
    }

    /// A phone from the address's bytes (FNV-1a), for addresses past `addressLimit`: stable
    /// across connections and runs, unlike Swift's seeded `Hasher`.
    private func phone(hashing source: IPAddressBytes) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in source.bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return Int(hash % UInt64(count)) + 1
    }
}
