import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 connection setup (`HTTP1Channel`) with `AdminConnectionGuard` where
/// the request is still as sent, before the conversion to HTTP types: Hummingbird's own hook
/// for extra handlers (`additionalChannelHandlers`) comes after it, too late to see an
/// absolute-form target or a second `Host` header.
struct AdminHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let makeGuard: @Sendable () -> AdminConnectionGuard
    let idleTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // As `HTTP1Channel`: errors are answered by Hummingbird, outbound headers are
            // already valid HTTP types.
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
            try channel.pipeline.syncOperations.addHandler(makeGuard())
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
