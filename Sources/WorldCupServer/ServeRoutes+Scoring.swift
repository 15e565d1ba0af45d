import HTTPTypes
import Hummingbird
import WorldCupModel

extension ServeRoutes {
    /// The scorers' routes, behind the scorer token: `/scorer` (whether a link's token is
    /// good), a win (`POST /teams/ID/wins`) and its undo (`DELETE /teams/ID/wins/KEY`), both
    /// within the client's bound on taps.
    func addScoring(to router: Router<Context>) {
        refuseOtherMethods(
            than: .get, at: "/scorer", router,
            Refusal(.methodNotAllowed, "Only GET is answered at /scorer.", allow: "GET"))
        refuseOtherMethods(
            than: .post, at: "/teams/:team/wins", router,
            Refusal(.methodNotAllowed, "A win is added with POST.", allow: "POST"))
        refuseOtherMethods(
            than: .delete, at: "/teams/:team/wins/:key", router,
            Refusal(.methodNotAllowed, "A win is taken back with DELETE.", allow: "DELETE"))
        let scorers = router.group().add(middleware: ScorerAuthorisation(token: token))
        scorers.get("/scorer") { _, _ in Response(status: .noContent, headers: ServeHeaders.fields(type: nil)) }
        let scores = scorers.group().add(middleware: TapLimit(taps: taps, behindProxy: behindProxy))
        scores.post("/teams/:team/wins") { request, context in
            let teamID = try Self.teamID(context)
            let key = try IdempotencyKey.scoreKey(request)
            return try Self.answer(await writer.run { try $0.addWin(teamID: teamID, clientKey: key) }, teamID: teamID)
        }
        scores.delete("/teams/:team/wins/:key") { _, context in
            let teamID = try Self.teamID(context)
            let key = try IdempotencyKey.scoreKey(inPath: Substring(context.parameters.get("key") ?? ""))
            return try Self.answer(await writer.run { try $0.takeBackWin(teamID: teamID, winKey: key) }, teamID: teamID)
        }
    }

    /// The team id in a path: a whole number, or a 404 that says whether it is not one or is
    /// one no team has (zero, negative, too large), the store unasked.
    private static func teamID(_ context: Context) throws -> Int64 {
        let text = Substring(context.parameters.get("team") ?? "")
        let digits = text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw Refusal(.notFound, "No team has the id \"\(visible(text))\": team ids are whole numbers.")
        }
        guard let id = Int64(text), id > 0 else { throw Refusal(.notFound, "No team has the id \(text).") }
        return id
    }

    private static func answer(_ score: KeyedScore, teamID: Int64) throws -> Response {
        switch score {
        case let .done(id, wins):
            return ServeHeaders.ok("{\"id\":\(id),\"wins\":\(wins)}", type: "application/json; charset=utf-8")
        case .teamGone:
            throw Refusal(.notFound, "No team has the id \(teamID).")
        case .keyUsedElsewhere:
            throw Refusal(.unprocessableContent, "This Idempotency-Key was used for another score: make a new one.")
        case .unknownWin:
            throw Refusal(.notFound, "No win of team \(teamID) was counted with this key.")
        case .nothingToTakeBack:
            throw Refusal(.conflict, "Someone has taken that win back already: nothing was changed.")
        }
    }

    /// A user's text in a message, control characters made visible.
    private static func visible(_ text: Substring) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "\u{FFFD}" : $0
                }))
    }
}
