import Testing

@testable import CastSpeakers

/// The target delays that play a group's members in step, in memory.
@Suite(.timeLimit(.minutes(1))) struct PlayoutAlignmentTests {
    @Test func shorterLinksWaitForTheLongestWhichKeepsTheConfiguredDelay() {
        let delays = PlayoutAlignment.targetDelays(
            base: .milliseconds(400),
            roundTrips: ["kitchen": .milliseconds(2), "den": .milliseconds(42), "tv": .milliseconds(12)])
        // Half of each round trip is the one-way delay the receiver plays late by; the
        // first 3 ms of a difference are taken for noise.
        #expect(delays == ["kitchen": .milliseconds(417), "den": .milliseconds(400), "tv": .milliseconds(412)])
    }

    @Test func differencesWithinTheNoiseAreLeftAlone() {
        let delays = PlayoutAlignment.targetDelays(
            base: .milliseconds(400), roundTrips: ["kitchen": .milliseconds(1), "den": .milliseconds(7)])
        #expect(delays == ["kitchen": .milliseconds(400), "den": .milliseconds(400)])
    }

    @Test func membersWithoutARoundTripYetAreLeftAsTheyAre() {
        #expect(PlayoutAlignment.targetDelays(base: .milliseconds(400), roundTrips: [:]).isEmpty)
        #expect(
            PlayoutAlignment.targetDelays(base: .milliseconds(300), roundTrips: ["den": .milliseconds(30)])
                == ["den": .milliseconds(300)])
    }

    @Test func changesSmallerThanFiveMillisecondsAreNotSent() {
        #expect(!PlayoutAlignment.isWorthChanging(.milliseconds(400), to: .microseconds(404_900)))
        #expect(!PlayoutAlignment.isWorthChanging(.milliseconds(403), to: .milliseconds(400)))
        #expect(PlayoutAlignment.isWorthChanging(.milliseconds(400), to: .milliseconds(405)))
        #expect(PlayoutAlignment.isWorthChanging(.milliseconds(420), to: .milliseconds(400)))
    }
}
