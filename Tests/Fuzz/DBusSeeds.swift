import CDBus
import CastDBus
import Foundation

/// Seed corpora of D-Bus method calls, as libdbus marshals them.
enum DBusSeeds {
    /// Each `(name, interface, member, arguments)` call to `path` at
    /// `destination`, marshalled, by name.
    static func marshal(
        _ calls: [(String, String, String, [DBusValue])], destination: String, path: String
    ) -> [String: [UInt8]] {
        var seeds: [String: [UInt8]] = [:]
        for (name, interface, member, arguments) in calls {
            guard let message = dbus_message_new_method_call(destination, path, interface, member) else { continue }
            defer { dbus_message_unref(message) }
            for argument in arguments { _ = DBusValue.append(argument, to: message) }
            dbus_message_set_serial(message, 1)
            var buffer: UnsafeMutablePointer<CChar>?
            var length: Int32 = 0
            guard dbus_message_marshal(message, &buffer, &length) != 0, let buffer else { continue }
            seeds[name] = buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                Array(UnsafeBufferPointer(start: $0, count: Int(length)))
            }
            dbus_free(buffer)
        }
        return seeds
    }

    /// Writes `seeds` into `folder`, one file each; whether all were written.
    static func write(_ seeds: [String: [UInt8]], to folder: String) -> Bool {
        seeds.allSatisfy { name, bytes in
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
        }
    }
}
