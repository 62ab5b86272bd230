import CastCommon
import Foundation
public import NIOCore

extension CastDeviceDetails {
    /// Where and how long to ask a device's setup server.
    public struct FetchConfiguration: Sendable, Hashable {
        /// The HTTPS port, asked first. Default ``CastDevice/setupSecurePort`` (8443).
        public var securePort: Int
        /// The plain-HTTP port, asked when HTTPS does not answer. Default ``CastDevice/setupPort`` (8008).
        public var port: Int
        /// The longest wait for each of the two answers, connecting included. Default 3 s.
        public var timeout: Duration

        /// Creates a configuration.
        public init(
            securePort: Int = CastDevice.setupSecurePort, port: Int = CastDevice.setupPort,
            timeout: Duration = .seconds(3)
        ) {
            self.securePort = securePort
            self.port = port
            self.timeout = timeout
        }
    }

    /// The path and query asked, as pychromecast's `get_device_info` asks it.
    static let eurekaInfoPath = "/setup/eureka_info?params=name,device_info"

    /// Reads `device`'s details from its local setup server, at its first address.
    ///
    /// As pychromecast's `get_device_info` does: HTTPS first (the device's
    /// certificate is self-signed, so it is not verified; only public
    /// details are read), then plain HTTP, whose answer on some firmware
    /// lacks `device_info` (conformance 078) and so the manufacturer. Each
    /// answer is bounded to ``largestAnswer`` bytes and
    /// ``FetchConfiguration/timeout``.
    ///
    /// - Parameters:
    ///   - device: the device to ask.
    ///   - configuration: the ports and the timeout.
    ///   - loop: where the sockets are opened.
    /// - Throws: ``CastDeviceDetailsError``.
    public static func fetch(
        for device: CastDevice, configuration: FetchConfiguration = FetchConfiguration(), on loop: any EventLoop
    ) async throws(CastDeviceDetailsError) -> CastDeviceDetails {
        guard device.hasOwnSetupServer, let address = device.addresses.first else {
            throw CastDeviceDetailsError(
                .noSetupServer, "\(device.friendlyName) has no setup server of its own to ask")
        }
        let host = CastDevice.urlHost(address)
        var failures: [String] = []
        for (scheme, port) in [("https", configuration.securePort), ("http", configuration.port)] {
            guard let url = URL(string: "\(scheme)://\(host):\(port)\(Self.eurekaInfoPath)") else { continue }
            let response: HTTPFetch.Response
            do {
                response = try await HTTPFetch.request(
                    "GET", url, timeout: configuration.timeout, keepingBodyUpTo: Self.largestAnswer, redirects: 0,
                    verifiesServer: false, on: loop)
            } catch let failure as HTTPFetch.Failure where failure.kind == .tooLarge {
                throw CastDeviceDetailsError(.malformedAnswer, "\(url): \(failure.description)")
            } catch {
                failures.append("\(url): \(error)")
                continue
            }
            guard response.status == 200, let body = response.body else {
                failures.append("\(url): status \(response.status)")
                continue
            }
            return try CastDeviceDetails(eurekaInfo: body)
        }
        throw CastDeviceDetailsError(.unreachable, failures.joined(separator: "; "))
    }
}
