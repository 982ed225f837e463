import Testing

extension Tag {
    /// A test whose verdict rests on the wall clock: it plays emulated time through real sockets
    /// (at the time scale it sets) and its expectations hold only while the machine keeps up.
    /// The rest of the suite runs on virtual time or checks bytes, counts and orders. These are
    /// kept because they are the check that the live proxy, the live bench and real peers do
    /// what the models say; docs/development.md lists them.
    @Tag public static var liveTiming: Self
}
