/// Per-connection state of one phone, keyed by connection id. A phone holds a handful of
/// connections at once, so a search of a short array beats hashing an id on every chunk (the
/// model engine looked a connection up several times per occurrence, and hashing was a tenth
/// of its time). Iterated in the order connections were added.
public struct ConnectionTable<Value> {
    @usableFromInline var ids: [ConnectionID] = []
    @usableFromInline var values: [Value] = []

    @inlinable public init() {}

    @inlinable public var count: Int { ids.count }

    /// Where `id`'s value is: read and changed in place there (`subscript(slot:)`), with one
    /// search for several changes, until a connection is added or removed.
    @inlinable public func slot(of id: ConnectionID) -> Int? {
        ids.firstIndex(of: id)
    }

    /// The value at a slot `slot(of:)` found, changed in place.
    @inlinable public subscript(slot slot: Int) -> Value {
        get { values[slot] }
        _modify { yield &values[slot] }
    }

    /// The connection's value; setting nil forgets the connection. No `_modify`: a change through
    /// it (`table[id]?.field = x`) is a read and a write, where a modify coroutine holding the
    /// optional copy needed a frame on the heap, a malloc and a free per change.
    @inlinable public subscript(id: ConnectionID) -> Value? {
        get { slot(of: id).map { values[$0] } }
        set {
            if let index = slot(of: id) {
                if let newValue {
                    values[index] = newValue
                } else {
                    ids.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                ids.append(id)
                values.append(newValue)
            }
        }
    }

    /// The connection's value, added as `defaultValue` first if it has none.
    @inlinable public subscript(id: ConnectionID, default defaultValue: @autoclosure () -> Value) -> Value {
        get { slot(of: id).map { values[$0] } ?? defaultValue() }
        _modify {
            let index: Int
            if let found = slot(of: id) {
                index = found
            } else {
                ids.append(id)
                values.append(defaultValue())
                index = values.count - 1
            }
            yield &values[index]
        }
    }

    @discardableResult @inlinable public mutating func removeValue(forKey id: ConnectionID) -> Value? {
        guard let index = slot(of: id) else { return nil }
        ids.remove(at: index)
        return values.remove(at: index)
    }
}

extension ConnectionTable: Sendable where Value: Sendable {}

extension ConnectionTable: Sequence {
    public typealias Element = (key: ConnectionID, value: Value)

    @inlinable public func makeIterator() -> some IteratorProtocol<Element> {
        zip(ids, values).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}
