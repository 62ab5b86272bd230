/// The framework as a whole: its release.
public enum CastFramework {
    /// The release, as `cast --version` and `cast-receiver --version` print
    /// it and the Debian package is versioned (scripts/package.sh reads it
    /// from this line; CHANGELOG.md lists what each release brought).
    public static let version = "0.9.0"
}
