import Foundation
import Hummingbird
import NetsimCore

/// How the admin API answers: JSON (pretty, keys sorted) but for the dashboard's files, the
/// HTML report and the metrics, and every error as `{"error": "..."}` with its status, so that
/// a script reads every failure the same way.
enum AdminAnswer {
    static let jsonType = "application/json"

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func errorJSON(_ message: String) -> String {
        (try? json(["error": message])) ?? #"{"error": "bad request"}"#
    }

    /// A whole answer: `body` with its content type.
    static func response(_ status: HTTPResponse.Status, _ body: String, contentType: String = jsonType) -> Response {
        Response(
            status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// An error answer: `message` as `{"error": ...}`.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        response(status, errorJSON(message))
    }
}

/// What is wrong with a request, for its 400.
struct AdminError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
