import CDBus

/// A private connection to a D-Bus session bus: method calls that block
/// with a timeout and waiting for a signal (the screen-cast portal's side),
/// or owning a name and serving method calls on one thread while signals go
/// out from any (an MPRIS player's side).
//
// @unchecked Sendable: its stored properties are `let`s — the connection
// pointer and the unique name (a String) — and never change. libdbus locks
// each connection itself once `dbus_threads_init_default` ran, which `init`
// calls before the connection exists: sending (calls, replies, signals) is
// safe from any thread. Reading is not shared: the portal reads from the
// one capture that owns its connection, and an MPRIS player reads only on
// its serving thread while other threads only emit signals.
package final class SessionBus: @unchecked Sendable {
    /// A D-Bus error: its name (`org.freedesktop.DBus.Error.ServiceUnknown`,
    /// a portal's own) and message.
    package struct Failure: Error, CustomStringConvertible {
        package var name: String
        package var message: String
        package var description: String { "\(self.name): \(self.message)" }

        package init(name: String, message: String) {
            self.name = name
            self.message = message
        }
    }

    /// A method call to an object this connection serves.
    package struct MethodCall: Sendable {
        package var path: String
        package var interface: String
        package var member: String
        package var arguments: [DBusValue]

        /// A call to `interface.member` of the object at `path`.
        package init(path: String, interface: String, member: String, arguments: [DBusValue]) {
            self.path = path
            self.interface = interface
            self.member = member
            self.arguments = arguments
        }

        /// The call `message` carries (a method call libdbus has validated).
        package init(message: OpaquePointer) {
            self.path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
            self.interface = dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
            self.member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
            self.arguments = DBusValue.arguments(of: message)
        }
    }

    /// A signal a served connection received (matched with ``addMatch(_:)``).
    package struct Signal: Sendable {
        package var interface: String
        package var member: String
        package var arguments: [DBusValue]

        init(message: OpaquePointer) {
            self.interface = dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
            self.member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
            self.arguments = DBusValue.arguments(of: message)
        }
    }

    /// What a served method call answers: its return values, or an error.
    package enum MethodResult: Sendable {
        case reply([DBusValue])
        case error(name: String, message: String)
    }

    private let connection: OpaquePointer
    /// This connection's unique name on the bus, e.g. `:1.42`.
    package let uniqueName: String

    /// Connects to the bus at `address` (`nil`: the session bus named by
    /// `DBUS_SESSION_BUS_ADDRESS`) and registers on it.
    package init(address: String?) throws(Failure) {
        dbus_threads_init_default()
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let opened: OpaquePointer?
        if let address {
            opened = dbus_connection_open_private(address, &error)
            if let opened, dbus_bus_register(opened, &error) == 0 {
                dbus_connection_close(opened)
                dbus_connection_unref(opened)
                throw Self.failure(error, otherwise: "cannot register on the bus at \(address)")
            }
        } else {
            opened = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        }
        guard let opened, let name = dbus_bus_get_unique_name(opened) else {
            throw Self.failure(error, otherwise: "no session bus")
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        self.connection = opened
        self.uniqueName = String(cString: name)
    }

    deinit {
        dbus_connection_close(self.connection)
        dbus_connection_unref(self.connection)
    }

    /// Calls `member` and waits up to `timeout` for its reply's arguments.
    package func call(
        _ destination: String, path: String, interface: String, member: String, arguments: [DBusValue],
        timeout: Duration = .seconds(10)
    ) throws(Failure) -> [DBusValue] {
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
            throw Failure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot create a message")
        }
        defer { dbus_message_unref(message) }
        for argument in arguments where !DBusValue.append(argument, to: message) {
            throw Failure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "cannot write \(argument)")
        }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + 1)
        guard let reply = dbus_connection_send_with_reply_and_block(self.connection, message, milliseconds, &error)
        else {
            throw Self.failure(error, otherwise: "\(interface).\(member) failed")
        }
        defer { dbus_message_unref(reply) }
        return DBusValue.arguments(of: reply)
    }

    /// Receives the signals `rule` matches (a D-Bus match rule).
    package func addMatch(_ rule: String) throws(Failure) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(self.connection, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw Self.failure(error, otherwise: "cannot match \(rule)") }
    }

    /// Waits for the signal `interface.member` from the object at `path`
    /// (matched beforehand with ``addMatch(_:)``) and returns its
    /// arguments; `nil` when `deadline` passes or `isCancelled` says so.
    /// Other messages are dropped: nothing else uses this connection.
    ///
    /// With `sender` (a well-known name), only a signal sent by the name's
    /// owner counts. A match rule's sender does not protect a connection:
    /// the bus delivers a signal addressed to it whatever its rules say, and
    /// a system bus lets any user send one.
    package func waitForSignal(
        interface: String, member: String, path: String, sender: String? = nil,
        until deadline: ContinuousClock.Instant, isCancelled: () -> Bool
    ) throws(Failure) -> [DBusValue]? {
        var owner: String?
        while ContinuousClock.now < deadline, !isCancelled() {
            while let message = dbus_connection_pop_message(self.connection) {
                defer { dbus_message_unref(message) }
                guard dbus_message_is_signal(message, interface, member) != 0,
                    let from = dbus_message_get_path(message), String(cString: from) == path
                else { continue }
                if let sender {
                    let origin = dbus_message_get_sender(message).map { String(cString: $0) }
                    // The name may have changed hands (logind restarted): asked again on a mismatch.
                    if origin == nil || origin != owner { owner = self.owner(of: sender) }
                    guard let origin, origin == owner else { continue }
                }
                return DBusValue.arguments(of: message)
            }
            // Reads for up to 100 ms; false once the connection is gone.
            guard dbus_connection_read_write(self.connection, 100) != 0 else {
                throw Failure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the session bus went away")
            }
        }
        return nil
    }

    /// The unique name of the connection that owns `name` now; `nil` when none does.
    package func owner(of name: String) -> String? {
        let reply = try? self.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)], timeout: .seconds(5))
        return reply?.first?.string
    }

    // MARK: Serving

    /// Takes `name` on the bus, failing if another connection owns it.
    package func requestName(_ name: String) throws(Failure) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let result = dbus_bus_request_name(self.connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        guard result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || result == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
        else {
            throw Self.failure(error, otherwise: "\(name) is owned by another connection")
        }
    }

    /// Answers method calls with `handler` on the calling thread until
    /// `isCancelled` says so (checked every 100 ms) or the bus goes away;
    /// signals matched with ``addMatch(_:)`` go to `onSignal`, on the same
    /// thread. `afterReply` runs once each call's answer is written (what a
    /// call asked for can then end the program without losing the answer).
    /// Replies to other messages are dropped.
    package func serve(
        until isCancelled: () -> Bool, handler: (MethodCall) -> MethodResult, onSignal: (Signal) -> Void = { _ in },
        afterReply: () -> Void = {}
    ) throws(Failure) {
        while !isCancelled() {
            while let message = dbus_connection_pop_message(self.connection) {
                defer { dbus_message_unref(message) }
                if dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL { onSignal(Signal(message: message)) }
                guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL else { continue }
                let result = handler(MethodCall(message: message))
                if dbus_message_get_no_reply(message) == 0 { self.answer(message, with: result) }
                afterReply()
            }
            guard dbus_connection_read_write(self.connection, 100) != 0 else {
                throw Failure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the session bus went away")
            }
        }
    }

    /// Sends the signal `interface.member` from the object at `path`, to
    /// every connection whose rules match it, or only to `destination`; from any thread.
    package func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue], destination: String? = nil
    ) {
        guard let signal = dbus_message_new_signal(path, interface, member) else { return }
        defer { dbus_message_unref(signal) }
        if let destination, dbus_message_set_destination(signal, destination) == 0 { return }
        guard arguments.allSatisfy({ DBusValue.append($0, to: signal) }) else { return }
        dbus_connection_send(self.connection, signal, nil)
        dbus_connection_flush(self.connection)
    }

    /// Answers the call `message` with `result`, written before this returns.
    private func answer(_ message: OpaquePointer, with result: MethodResult) {
        let reply: OpaquePointer?
        switch result {
        case .reply(let values):
            reply = dbus_message_new_method_return(message)
            if let reply, !values.allSatisfy({ DBusValue.append($0, to: reply) }) {
                dbus_message_unref(reply)
                self.sendError(to: message, name: "org.freedesktop.DBus.Error.Failed", text: "cannot write the reply")
                return
            }
        case .error(let name, let text):
            reply = dbus_message_new_error(message, name, text)
        }
        guard let reply else { return }
        dbus_connection_send(self.connection, reply, nil)
        dbus_message_unref(reply)
        dbus_connection_flush(self.connection)
    }

    private func sendError(to message: OpaquePointer, name: String, text: String) {
        guard let reply = dbus_message_new_error(message, name, text) else { return }
        dbus_connection_send(self.connection, reply, nil)
        dbus_message_unref(reply)
    }

    private static func failure(_ error: DBusError, otherwise fallback: String) -> Failure {
        guard let name = error.name else {
            return Failure(name: "org.freedesktop.DBus.Error.Failed", message: fallback)
        }
        return Failure(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? fallback)
    }
}
