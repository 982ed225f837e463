import Hummingbird
import NIOCore

/// A request's context: Hummingbird's, and the connection it came on, which an event stream
/// moves out of the cap on connections (`AdminConnections`) and which is closed when a newer
/// stream takes its place.
struct AdminContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
