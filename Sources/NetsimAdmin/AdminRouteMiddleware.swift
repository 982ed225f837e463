import Hummingbird

/// Checks a request against the route table before a route answers it: who may ask
/// (`AdminAccess`: a 401 with `WWW-Authenticate: Bearer`, or a 403), then whether the path is
/// a route (a 404 that lists them) and the method its own (a 405 with `Allow`). The router's
/// own 404 and 405 carry no word of what would have been right.
struct AdminRouteMiddleware: RouterMiddleware {
    typealias Context = AdminContext

    let access: AdminAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let target = request.head.path ?? "/"
        let path = AdminQuery(target: target).path
        let route = AdminRoute(rawValue: path)
        // HTTP types hold the Host header as the authority.
        let host = request.head.authority.map { [(name: "host", value: $0)] } ?? []
        let headers = host + request.headers.map { (name: $0.name.rawName, value: $0.value) }
        if let refusal = access.refusal(
            method: request.method.rawValue, target: target, headers: headers, needsToken: route?.holdsData ?? true)
        {
            var response = AdminAnswer.error(HTTPResponse.Status(code: refusal.status), refusal.message)
            if refusal.status == 401 { response.headers[.wwwAuthenticate] = "Bearer" }
            return response
        }
        guard let route else {
            let known = AdminRoute.allCases.map { "\($0.method.rawValue) \($0.rawValue)" }.sorted()
            return AdminAnswer.error(.notFound, "unknown endpoint \(path); try \(known.joined(separator: ", "))")
        }
        guard request.method == route.method else {
            var response = AdminAnswer.error(.methodNotAllowed, "\(path) takes \(route.method.rawValue), not \(request.method.rawValue)")
            response.headers[.allow] = route.method.rawValue
            return response
        }
        return try await next(request, context)
    }
}
