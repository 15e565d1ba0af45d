import Foundation
import TestSupport
import Testing

/// The OpenAPI test's tools: schemathesis where `make deps` installs it, and answers.py, which
/// lists the document's answers, reads those schemathesis saw, and checks answers to requests
/// the test makes with schemathesis' own checks.
extension ServeOpenAPITests {
    static let document = ServeProcess.packageRoot.appendingPathComponent("deploy/openapi.yaml").path
    /// Where `make deps` installs schemathesis, in a virtual environment of its own.
    static let tools = ServeProcess.packageRoot.appendingPathComponent(".build-tools/schemathesis/bin").path
    static let answersScript = ServeProcess.packageRoot.appendingPathComponent("Tests/OpenAPI/answers.py").path

    struct DocumentedAnswer: Hashable, CustomStringConvertible {
        var method: String
        var path: String
        var status: String
        init(_ method: String, _ path: String, _ status: String) {
            self.method = method
            self.path = path
            self.status = status
        }
        var description: String { "\(method) \(path) \(status)" }
    }

    /// A request sent by answers.py: `path` is the document's, `target` what is sent.
    struct Request: Encodable {
        var method: String
        var path: String
        var target: String
        var headers: [String: String] = [:]
        var body: String?
        var stream = false
        /// The status this request is meant to provoke (nil: any the document allows).
        var expected: Int?
    }

    struct Answer: Decodable {
        var status: Int
        var failures: String?
        var body: String
    }

    static func tool(_ name: String) throws -> String {
        let path = tools + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ServeProcess.Failure(
                description: "schemathesis is not installed in .build-tools/schemathesis: run `make deps`, "
                    + "which installs it there from PyPI.")
        }
        return path
    }

    static func answers(_ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try tool("python"))
        process.arguments = [answersScript, document] + arguments
        let output = Pipe(), errors = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        standardInput.fileHandleForWriting.write(input ?? Data())
        try standardInput.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServeProcess.Failure(
                description: "answers.py \(arguments[0]): \(String(decoding: err, as: UTF8.self))")
        }
        return out
    }

    static func documentedAnswers(_ arguments: [String]) throws -> Set<DocumentedAnswer> {
        let rows = try JSONDecoder().decode([[String]].self, from: answers(arguments))
        return Set(rows.map { DocumentedAnswer($0[0], $0[1], $0[2]) })
    }

    /// Sends each request to `serve` and checks its answer against the document: each must get
    /// the status it is meant to provoke and pass every check; what it got is added to `seen`.
    @discardableResult
    static func check(
        _ requests: [Request], on serve: ServeProcess, seen: inout Set<DocumentedAnswer>
    ) throws -> [Answer] {
        let input = try JSONEncoder().encode(requests)
        let answers = try JSONDecoder().decode([Answer].self, from: answers(["check", serve.base], input: input))
        #expect(answers.count == requests.count)
        for (request, answer) in zip(requests, answers) {
            let label = "\(request.method) \(request.target.prefix(80))"
            if let expected = request.expected {
                #expect(answer.status == expected, "\(label): \(answer.status) \(answer.body)")
            }
            #expect(answer.failures == nil, "\(label): \(answer.failures ?? "")")
            seen.insert(DocumentedAnswer(request.method, request.path, String(answer.status)))
        }
        return answers
    }
}
