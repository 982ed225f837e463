extension Array {
    /// Drops the elements from `count` on, keeping the capacity. The model engine empties its
    /// small buffers (actions, writes, the radio's waits) several times per occurrence, and
    /// `removeLast(_:)`, `removeAll(keepingCapacity:)` and `removeAll(where:)` each went
    /// through `replaceSubrange`, a few percent of its time; dropping a handful of elements one
    /// by one costs less.
    @inlinable @inline(__always)
    public mutating func truncate(to count: Int) {
        while self.count > count { removeLast() }
    }
}
