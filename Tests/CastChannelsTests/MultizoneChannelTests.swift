import CastChannels
import CastEmulator
import CastTestSupport
import Testing

@Suite(.timeLimit(.minutes(3))) struct MultizoneChannelTests {
    @Test func membersAndCastingGroupsFollowTheGroup() async throws {
        try await ChannelFixture.with { fixture in
            let kitchen = MultizoneDevice(
                id: "kitchen-id", name: "Kitchen", capabilities: 4, volume: ReceiverVolume(level: 0.5, isMuted: false))
            fixture.emulator.addGroupMember(kitchen)
            fixture.emulator.castingGroups = [CastingGroup(id: "group-1", name: "Downstairs")]

            let multizone = MultizoneChannel()
            multizone.attach(to: fixture.connection, destinationID: "receiver-0", logger: quietLogger)
            let status = try await multizone.requestStatus()
            #expect(status.devices == [kitchen])
            #expect(status.isMultichannel == false)
            #expect(multizone.devices == [kitchen])
            #expect(try await multizone.requestCastingGroups() == [CastingGroup(id: "group-1", name: "Downstairs")])

            let events = multizone.events()
            let hall = MultizoneDevice(id: "hall-id", name: "Hall")
            fixture.emulator.addGroupMember(hall)
            var renamed = kitchen
            renamed.name = "Kitchen speaker"
            fixture.emulator.addGroupMember(renamed)
            fixture.emulator.removeGroupMember(id: "hall-id")
            let seen = await collect(events, count: 3) { $0 }
            #expect(seen == [.deviceAdded(hall), .deviceUpdated(renamed), .deviceRemoved(id: "hall-id")])
            #expect(multizone.devices == [renamed])
            multizone.detach()
        }
    }
}
