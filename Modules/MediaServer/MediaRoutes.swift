import Hummingbird

/// The routes of a ``MediaServer``: its items by token, GET and HEAD, with
/// the CORS headers receivers need. Apart from the server so that tests
/// drive the same router in memory, without a socket.
enum MediaRoutes {
    /// A router that answers for what `registry` serves.
    static func router(serving registry: ServedItems) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        // CORS for receivers' XHR and MSE fetches (the iOS sender guide: "allow at least
        // Content-Type, Accept-Encoding, and Range"), preflight included.
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .all, allowHeaders: [.contentType, .acceptEncoding, .range, .origin, .accept],
                allowMethods: [.get, .head, .options],
                exposedHeaders: ["Content-Length", "Content-Range", "Accept-Ranges"]))
        router.get("/media/:token/:name") { request, context -> Response in
            try await registry.respond(
                to: request, token: context.parameters.get("token") ?? "", name: context.parameters.get("name") ?? "",
                context: context)
        }
        router.head("/media/:token/:name") { request, context -> Response in
            let response = try await registry.respond(
                to: request, token: context.parameters.get("token") ?? "", name: context.parameters.get("name") ?? "",
                context: context)
            // A body of known length gave its Content-Length already. One of
            // unknown length (a conversion in progress) gets an empty body of
            // unknown length too, not Hummingbird's "Content-Length: 0".
            guard response.body.contentLength == nil else { return response.createHeadResponse() }
            return Response(
                status: response.status, headers: response.headers, body: ResponseBody { try await $0.finish(nil) })
        }
        return router
    }
}
