import CastChannels
public import CastDiscovery
public import CastKit
import NIOConcurrencyHelpers

/// The device chooser: the devices that can run the app, the session's
/// device with its volume and what it plays, and a diagnosis when the
/// list is empty — the SDK's device-chooser dialog without the view.
///
/// Opening the chooser starts the context (if the app has not) and switches
/// discovery to active scanning; closing it goes back to passive, as the SDK
/// prefers while no chooser shows. It lists the context's
/// `CastContext.applicationDevices`: each device found is asked once
/// whether it can run `CastOptions.receiverApplicationID`
/// (GET_APP_AVAILABILITY, the answer remembered per device), and only those
/// that can — or that cannot be asked — are listed, as the SDK's filter
/// criteria do; the Cast button and the introduction prompt count the same list.
///
/// ```swift
/// let chooser = DeviceChooserModel(context: context)
/// await chooser.open()
/// for await state in chooser.updates() { render(state.entries, state.noDevicesReason?.hint) }
/// let session = try await chooser.select(device)
/// ```
///
/// While open, it asks each device it lists for its manufacturer and model
/// (`CastContext.deviceDetails`, once per device), and shows them
/// in ``DeviceChooserState/Entry/details`` as they arrive.
public final class DeviceChooserModel: Sendable {
    private struct Inputs: Sendable {
        var devices: [CastDevice] = []
        var session: CastSession?
        /// The ids of the devices that can run the app, from the context.
        var runningTheApp: Set<String> = []
        var isOpen = false
        var listenFailure: String?
        var queriedInterfaces: [String]?
        /// Which opening the current search belongs to; `nil` while closed.
        var search: Int?
        var searchesStarted = 0
        var quietPeriodOver = false
        /// What each listed device's setup server said, by id (`CastContext.deviceDetails`).
        var details: [String: CastDeviceDetails] = [:]
        /// The ids whose details were asked for.
        var detailsAsked: Set<String> = []
    }

    private let context: CastContext
    private let state = PublishedState(DeviceChooserState.initial)
    private let inputs = NIOLockedValueBox(Inputs())
    private let following = FollowingTask()
    private let quietPeriod: Duration
    private let filtersByApplication: Bool

    /// The media of the session, for the "connected" view's now-playing line and controls.
    public let mediaController: MediaControllerModel
    /// The volume of the session's device, for the "connected" view's slider.
    public let volume: VolumeModel

    /// Creates a chooser for `context`.
    ///
    /// - Parameters:
    ///   - context: whose discovery and session to show.
    ///   - filtersByApplication: whether to list only devices that can run
    ///     the receiver app (the context's `CastContext.applicationDevices`).
    ///   - quietPeriod: how long an open chooser searches before an empty
    ///     list is diagnosed as ``DeviceChooserState/NoDevicesReason/nothingAnswers``.
    ///     It runs on the context's `CastOptions.clock`.
    public init(
        context: CastContext, filtersByApplication: Bool = true, quietPeriod: Duration = .seconds(10)
    ) {
        self.context = context
        self.quietPeriod = quietPeriod
        self.filtersByApplication = filtersByApplication
        self.mediaController = MediaControllerModel(sessionManager: context.sessionManager)
        self.volume = VolumeModel(sessionManager: context.sessionManager)
        let devices = context.discoveryManager.events()
        let sessions = context.sessionManager.sessionUpdates()
        let runningTheApp = filtersByApplication ? context.applicationDevices.updates() : nil
        self.following.start { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                if let runningTheApp {
                    group.addTask { [weak self] in
                        for await devices in runningTheApp {
                            self?.inputs.withLockedValue { $0.runningTheApp = Set(devices.map(\.id)) }
                            self?.refresh()
                        }
                    }
                }
                group.addTask { [weak self] in
                    for await _ in devices {
                        guard let self else { return }
                        self.inputs.withLockedValue { $0.devices = self.context.discoveryManager.devices }
                        self.refresh()
                    }
                }
                group.addTask { [weak self] in
                    for await session in sessions {
                        self?.inputs.withLockedValue { $0.session = session }
                        self?.refresh()
                    }
                }
                await group.waitForAll()
            }
        }
    }

    deinit {
        self.following.cancel()
    }

    /// Stops following discovery and the session (and closes the chooser).
    public func close() async {
        await self.dismiss()
        self.following.cancel()
        self.mediaController.close()
        self.volume.close()
    }

    /// The chooser now.
    public var chooserState: DeviceChooserState { self.state.current }

    /// The chooser now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<DeviceChooserState> {
        self.state.updates()
    }

    // MARK: Actions

    /// Shows the chooser: starts the context if needed and scans actively.
    /// A failure to listen is not thrown; it is the empty list's diagnosis.
    public func open() async {
        var failure: String?
        do {
            try await self.context.start()
        } catch {
            failure = error.message
        }
        await self.context.discoveryManager.setScanMode(.active)
        self.inputs.withLockedValue { inputs in
            inputs.isOpen = true
            inputs.listenFailure = failure
            inputs.searchesStarted += 1
            inputs.search = inputs.searchesStarted
            inputs.quietPeriodOver = false
        }
        let search = self.inputs.withLockedValue { $0.search }
        await self.checkInterfaces()
        let quietPeriod = self.quietPeriod
        let clock = self.context.options.clock
        Task { [weak self] in
            // While open: the interfaces every second, and the end of the
            // quiet period, on the context's clock.
            func watch(_ clock: some Clock<Duration>) async {
                let start = clock.now
                let tick = min(quietPeriod, .seconds(1))
                while self?.inputs.withLockedValue({ $0.search }) == search {
                    try? await clock.sleep(for: tick)
                    guard let model = self, model.inputs.withLockedValue({ $0.search == search }) else { return }
                    let over = start.duration(to: clock.now) >= quietPeriod
                    model.inputs.withLockedValue { $0.quietPeriodOver = over }
                    await model.checkInterfaces()
                }
            }
            await watch(clock)
        }
    }

    /// Notes which interfaces discovery queries on, and publishes the chooser.
    private func checkInterfaces() async {
        let interfaces = await self.context.discoveryManager.queriedInterfaces
        self.inputs.withLockedValue { $0.queriedInterfaces = interfaces }
        self.refresh()
    }

    /// Hides the chooser: discovery goes back to passive scanning.
    public func dismiss() async {
        let wasOpen = self.inputs.withLockedValue { inputs in
            defer {
                inputs.isOpen = false
                inputs.search = nil
            }
            return inputs.isOpen
        }
        guard wasOpen else { return }
        await self.context.discoveryManager.setScanMode(.passive)
        self.refresh()
    }

    /// Starts a session on `device` (ending the current one, if any).
    @discardableResult
    public func select(_ device: CastDevice) async throws(CastSessionError) -> CastSession {
        try await self.context.sessionManager.startSession(on: device)
    }

    /// Stops casting: ends the session and stops the receiver app.
    public func stopCasting() async {
        await self.context.sessionManager.endSession(stoppingApplication: true)
    }

    /// Disconnects: ends the session and leaves the receiver app running for others.
    public func disconnect() async {
        await self.context.sessionManager.endSession(stoppingApplication: false)
    }

    // MARK: Deriving the state

    /// Publishes the chooser; while it is open, asks the details of devices listed for the first time.
    private func refresh() {
        let inputs = self.inputs.withLockedValue { $0 }
        var listed: [CastDevice] = []
        self.state.update { state in
            state = Self.chooser(from: inputs)
            if self.filtersByApplication {
                state.entries.removeAll { entry in !entry.isCurrent && !inputs.runningTheApp.contains(entry.id) }
                if state.entries.isEmpty, state.noDevicesReason == nil { state.noDevicesReason = .searching }
            }
            listed = state.entries.map(\.device)
        }
        guard inputs.isOpen else { return }
        let toAsk = self.inputs.withLockedValue { inputs in
            let new = listed.filter { !inputs.detailsAsked.contains($0.id) }
            inputs.detailsAsked.formUnion(new.map(\.id))
            return new
        }
        for device in toAsk {
            let directory = self.context.deviceDetails
            Task { [weak self] in
                guard let details = await directory.details(for: device) else { return }
                self?.inputs.withLockedValue { $0.details[device.id] = details }
                self?.refresh()
            }
        }
    }

    /// The chooser for `inputs`, before filtering by app.
    private static func chooser(from inputs: Inputs) -> DeviceChooserState {
        let session = inputs.session
        let current = session.flatMap { $0.state == .ended ? nil : $0 }
        let entries = inputs.devices.map { device in
            let isCurrent = current?.device.id == device.id
            return DeviceChooserState.Entry(
                device: device,
                statusText: isCurrent ? current?.application?.displayName : device.runningAppStatus,
                isCurrent: isCurrent, details: inputs.details[device.id])
        }
        let connection = current.map { session in
            DeviceChooserState.Connection(
                device: session.device, isConnecting: session.state == .starting || session.state == .suspended,
                applicationName: session.application?.displayName)
        }
        var reason: DeviceChooserState.NoDevicesReason?
        if entries.isEmpty {
            if let failure = inputs.listenFailure {
                reason = .cannotListen(failure)
            } else if inputs.queriedInterfaces?.isEmpty == true {
                reason = .noNetworkInterface
            } else {
                reason = inputs.quietPeriodOver ? .nothingAnswers : .searching
            }
        }
        return DeviceChooserState(
            isOpen: inputs.isOpen, entries: entries, connection: connection, noDevicesReason: reason)
    }
}
