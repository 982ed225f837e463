import NIOCore
import NIOHTTP1

/// The first handler on an admin connection, where the request is still as sent: counts the
/// connection against the cap (`AdminConnections`), gives each request
/// `AdminLimits.requestTimeout` to arrive whole, and refuses a request `AdminAccess` refuses
/// whatever its route, before Hummingbird's conversion to HTTP types, which reads an
/// absolute-form target as its path and keeps only the first of two `Host` headers: the two
/// readings `AdminAccess` exists to refuse.
///
/// A refused request gets its answer here, with the headers every answer carries, and the
/// connection is closed. (Idle connections between requests are Hummingbird's idle timeout's.)
final class AdminConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let access: AdminAccess
    private let connections: AdminConnections
    private let requestTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// A request was refused: the rest of it is dropped until the close.
    private var refused = false

    init(access: AdminAccess, connections: AdminConnections, requestTimeout: TimeAmount) {
        self.access = access
        self.connections = connections
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        connections.add(channel)
        channel.closeFuture.whenComplete { [connections] _ in connections.remove(channel) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            let channel = context.channel
            deadline?.cancel()
            deadline = context.eventLoop.scheduleTask(in: requestTimeout) { channel.close(promise: nil) }
            if let refusal = access.refusal(of: head, needsToken: false) {
                refused = true
                refuse(refusal, context: context)
                return
            }
        case .body: break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    private func refuse(_ refusal: AdminAccess.Refusal, context: ChannelHandlerContext) {
        let body = AdminAnswer.errorJSON(refusal.message)
        var headers = HTTPHeaders(AdminHeadersMiddleware.common.map { ($0.name.rawName, $0.value) })
        headers.add(name: "content-type", value: AdminAnswer.jsonType)
        headers.add(name: "content-length", value: "\(body.utf8.count)")
        headers.add(name: "connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: refusal.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
