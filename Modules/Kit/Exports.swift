// CastKit is the one import most apps need: it brings the modules its API is made of.
@_exported public import CastChannels
@_exported public import CastCommon
@_exported public import CastDiscovery
@_exported public import CastLogging
@_exported public import CastMedia
@_exported public import CastTransport
