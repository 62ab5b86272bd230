import Foundation
import Testing

/// README.md's Swift snippets are the ones ReadmeSnippets.swift compiles.
@Suite(.timeLimit(.minutes(3))) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of each ```swift block, trimmed, except the Package.swift manifest excerpt.
    static func readmeSnippets() throws -> [[String]] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current ?? [])
                current = nil
            } else {
                current?.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return blocks.filter { $0.first != "// Package.swift of your app" }
    }

    @Test func everyReadmeSnippetIsCompiled() throws {
        let compiled = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/ReadmeSnippetTests/ReadmeSnippets.swift"),
            encoding: .utf8
        ).split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let snippets = try Self.readmeSnippets()
        #expect(snippets.count >= 6)
        for snippet in snippets {
            // Imports sit at the top of the compiled file; the body must appear as one run of lines.
            let body = Array(snippet.drop { $0.hasPrefix("import ") || $0.isEmpty })
            let found = compiled.indices.contains { start in
                start + body.count <= compiled.count && Array(compiled[start..<(start + body.count)]) == body
            }
            #expect(found, "README snippet not compiled:\n\(snippet.joined(separator: "\n"))")
        }
    }
}
