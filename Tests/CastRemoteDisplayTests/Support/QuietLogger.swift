import CastLogging
import CastTestSupport

let quietLogger = StreamingFixture.logger
