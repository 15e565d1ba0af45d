/// A number of wins as a sentence says it: "1 win", "3 wins".
public enum WinsText {
    public static func of(_ count: Int) -> String {
        count == 1 ? "1 win" : "\(count) wins"
    }
}
