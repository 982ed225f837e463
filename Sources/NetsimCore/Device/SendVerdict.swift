/// What happens to a chunk the proxy read.
public enum SendVerdict: Sendable, Equatable {
    /// Deliver it to the other side.
    case deliver(Delivery)
    /// The connection is dead and silent (blackholed, or its NAT mapping expired): drop it.
    case discard
    /// The connection is dead and both sides should get a RST.
    case reset
}
