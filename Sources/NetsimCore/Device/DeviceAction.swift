/// What the proxy must do at a timeline event.
public enum DeviceAction: Sendable, Equatable {
    /// Reset both sides of these connections.
    case reset([ConnectionID])
    /// These connections go silent: drop their bytes from now on, close nothing.
    case silence([ConnectionID])
}
