import NIOCore

/// The handler in each of a proxied connection's two channels. It only translates channel
/// events into calls on the connection, and holds back the channel's reads while the
/// connection says this side must wait (backpressure: reads are pulled, never pushed).
final class ProxySideHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let side: ProxiedConnection.Side
    private let connection: ProxiedConnection
    private var context: ChannelHandlerContext?
    private var readPending = false

    init(side: ProxiedConnection.Side, connection: ProxiedConnection) {
        self.side = side
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        // A front end's handshake handler hands over what it buffered as it leaves, even nothing.
        guard buffer.readableBytes > 0 else { return }
        connection.received(buffer, from: side)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection.writabilityChanged(of: side)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            connection.inputClosed(on: side)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelActive(context: ChannelHandlerContext) {
        connection.activated(side)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.inactive(side)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.failed(side, error)
        context.close(promise: nil)
    }

    func read(context: ChannelHandlerContext) {
        readPending = true
        readIfAllowed(context)
    }

    /// Called by the connection when this side may read again. The connection is asked once
    /// more all the same: an action list may hold a resume that a later event in it overtook
    /// (a side silenced while its partner became writable), and a read let through here is
    /// up to `maxMessagesPerRead` buffers read whatever happens to them.
    func resumeReading() {
        guard let context else { return }
        readIfAllowed(context)
    }

    /// The one place a read goes ahead: only while one is held and the connection allows it.
    private func readIfAllowed(_ context: ChannelHandlerContext) {
        guard readPending, connection.mayRead(from: side) else { return }
        readPending = false
        context.read()
    }
}
