import HTTPTypes
import Hummingbird

/// Puts on every answer what the dashboard's safety needs, whatever route answered: its
/// Content-Security-Policy (only this API's own script, style and requests; no framing), no
/// sniffing of content types, no caching, no referrer. Outermost, so that errors get them too.
struct AdminHeadersMiddleware: RouterMiddleware {
    typealias Context = AdminContext

    static var common: HTTPFields {
        [
            .contentSecurityPolicy: DashboardPage.contentSecurityPolicy, HTTPField.Name("x-content-type-options")!: "nosniff",
            .cacheControl: "no-store", HTTPField.Name("referrer-policy")!: "no-referrer", HTTPField.Name("x-frame-options")!: "DENY",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            // Hummingbird's own refusals (a body over the limit, a malformed request) in the
            // API's form.
            response = AdminAnswer.error(error.status, error.body ?? error.status.reasonPhrase)
        }
        response.headers.append(contentsOf: Self.common)
        return response
    }
}
