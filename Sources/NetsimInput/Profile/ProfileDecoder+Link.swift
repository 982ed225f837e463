import NetsimCore

extension ProfileDecoder {
    /// The keys a link mapping, or one of its `up` / `down` mappings, may set.
    static let linkFieldKeys = ["rate", "trace", "delay", "jitter", "loss", "queue"]

    /// A link mapping: fields given at its top apply to both directions; `up` and `down`
    /// mappings override them per direction. Only the fields given are set, which is what a
    /// `set` event needs; a network applies them to an unshaped link.
    ///
    /// `owner` says whose link it is ("network 'lte'", "timeline event 3") for messages.
    func linkChanges(_ node: YAMLNode, owner: String) throws(InputFileError) -> (up: LinkChange, down: LinkChange) {
        let mapping = try node.named("the link of \(owner)").mapping(keys: Self.linkFieldKeys + ["up", "down"])
        let shared = try linkChange(mapping)
        func direction(_ direction: Direction) throws(InputFileError) -> LinkChange {
            guard let node = mapping.value(direction.rawValue) else { return shared }
            let own = try node.named("link '\(direction.rawValue)' of \(owner)").mapping(keys: Self.linkFieldKeys)
            return try linkChange(own).filledIn(from: shared)
        }
        return (up: try direction(.up), down: try direction(.down))
    }

    private func linkChange(_ mapping: YAMLMapping) throws(InputFileError) -> LinkChange {
        let capacity: LinkCapacity?
        switch (mapping.value("rate"), mapping.value("trace")) {
        case (.some, .some(let traceNode)):
            throw traceNode.error("\(mapping.node.place) gives both 'rate' and 'trace'; give one (the trace sets the rate)")
        case (.some(let rateNode), nil): capacity = try rate(rateNode)
        case (nil, .some(let traceNode)): capacity = try trace(traceNode)
        case (nil, nil): capacity = nil
        }
        return LinkChange(
            capacity: capacity,
            delay: try mapping.value("delay").map(duration),
            jitter: try mapping.value("jitter").map(jitter),
            loss: try mapping.value("loss").map(loss),
            queueLimit: try mapping.value("queue").map(queueLimit))
    }

    /// `unlimited`, or a bit rate.
    private func rate(_ node: YAMLNode) throws(InputFileError) -> LinkCapacity {
        if try node.string() == "unlimited" { return .unlimited }
        return .rate(bitsPerSecond: try node.quantity(Quantity.bitRate, unitExample: "kbps"))
    }

    /// A mahimahi trace file, read through the loader's trace reader.
    private func trace(_ node: YAMLNode) throws(InputFileError) -> LinkCapacity {
        let path = try node.string()
        let text: String
        do {
            text = try readTrace(path)
        } catch {
            throw node.error("\(node.place): cannot read trace file '\(path)': \(error)")
        }
        do {
            return .trace(try DeliveryTrace(parsing: text, source: path))
        } catch {
            throw node.error("\(node.place): trace file '\(path)', line \(error.line): \(error.reason)")
        }
    }

    /// A duration (uniform jitter), or `{amount, distribution, reorder}`. Zero means no jitter,
    /// which lets a `set` event remove it.
    private func jitter(_ node: YAMLNode) throws(InputFileError) -> Jitter? {
        let jitter: Jitter
        if case .mapping = node.node {
            let mapping = try node.mapping(keys: ["amount", "distribution", "reorder"])
            jitter = Jitter(
                amount: try duration(mapping.required("amount")),
                distribution: try mapping.value("distribution")?.choice(Jitter.Distribution.self) ?? .uniform,
                reordersDatagrams: try mapping.value("reorder")?.flag() ?? false)
        } else {
            jitter = Jitter(amount: try duration(node))
        }
        return jitter.amount > 0 ? jitter : nil
    }

    private enum LossModelName: String, CaseIterable {
        case independent
        case gilbertElliott = "gilbert-elliott"
    }

    /// A percentage (independent loss), or a mapping with a `model`. 0% means no loss.
    private func loss(_ node: YAMLNode) throws(InputFileError) -> LossModel {
        guard case .mapping = node.node else {
            return independentLoss(try percentage(node))
        }
        let mapping = try node.mapping()
        switch try mapping.required("model").choice(LossModelName.self) {
        case .independent:
            try mapping.requireKnownKeys(["model", "probability"])
            return independentLoss(try percentage(mapping.required("probability")))
        case .gilbertElliott:
            try mapping.requireKnownKeys(["model", "enterBad", "leaveBad", "lossInBad", "lossInGood"])
            return .gilbertElliott(
                enterBad: try percentage(mapping.required("enterBad")),
                leaveBad: try percentage(mapping.required("leaveBad")),
                lossInBad: try mapping.value("lossInBad").map(percentage) ?? 1,
                lossInGood: try mapping.value("lossInGood").map(percentage) ?? 0)
        }
    }

    private func independentLoss(_ probability: Double) -> LossModel {
        probability > 0 ? .independent(probability: probability) : .none
    }

    private func percentage(_ node: YAMLNode) throws(InputFileError) -> Double {
        try node.quantity(Quantity.percentage, unitExample: "%")
    }

    /// `unlimited`, or a size; nil stands for unlimited (`LinkChange.queueLimit` is doubly
    /// optional: not given, or given as unlimited).
    private func queueLimit(_ node: YAMLNode) throws(InputFileError) -> Int? {
        if try node.string() == "unlimited" { return nil }
        return try node.quantity(Quantity.byteCount, unitExample: "KiB")
    }
}

extension LinkChange {
    /// These changes, with the fields they leave unset taken from `base` (a direction's own
    /// fields over the fields given for both).
    func filledIn(from base: LinkChange) -> LinkChange {
        LinkChange(
            capacity: capacity ?? base.capacity, delay: delay ?? base.delay, jitter: jitter ?? base.jitter,
            loss: loss ?? base.loss, queueLimit: queueLimit ?? base.queueLimit)
    }
}
