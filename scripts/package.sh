#!/usr/bin/env bash
# `make install` and `make deb`: the release `cast` and `cast-receiver`,
# linked with the Swift runtime statically (--static-swift-stdlib) and
# stripped, so they need only the system libraries Debian packages; their
# man pages (one per subcommand, from the argument parser, through
# swift-argument-parser's own generate-manual tool), shell completions, and a
# desktop entry with its icon.
#
#   scripts/package.sh install   installs under $DESTDIR$PREFIX (default /usr/local)
#   scripts/package.sh deb       writes .build/package/swift-cast_<version>_<arch>.deb (prefix /usr)
#
# The version is CastFramework.version (Modules/Common/CastFramework.swift),
# the one `cast --version` prints; the documentation folder holds the
# licence (packaging/debian/copyright), THIRD_PARTY_NOTICES.md and CHANGELOG.md.
#
# The package's dependencies are read from the binaries themselves: each
# shared library `ldd` names, mapped to the Debian package that ships it.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:?usage: scripts/package.sh install|deb}"
swift="${SWIFT:-swift}"
scratch=.build/package
products=(cast cast-receiver)

# The release, read from the Swift constant every product prints with --version.
version=$(sed -n -E 's/^ *public static let version = "([0-9A-Za-z.+~-]+)"$/\1/p' Modules/Common/CastFramework.swift)
[ -n "$version" ] || { echo "package: no version in Modules/Common/CastFramework.swift" >&2; exit 1; }

build() {
    for product in "${products[@]}"; do
        "$swift" build -c release --static-swift-stdlib --scratch-path "$scratch" --product "$product" 2>&1 \
            | grep -E "error|warning: |Compiling cast|Build of product" | grep -v "prohibited flag" || true
        test -x "$scratch/release/$product" || { echo "package: $product did not build" >&2; exit 1; }
    done
    # The man page generator is swift-argument-parser's own tool, built for this machine.
    "$swift" build -c release --static-swift-stdlib --scratch-path "$scratch" --product generate-manual 2>&1 | grep -E "error" || true
    test -x "$scratch/release/generate-manual" || { echo "package: generate-manual did not build" >&2; exit 1; }
    local printed
    printed=$("$scratch/release/cast" --version)
    [ "$printed" = "$version" ] || { echo "package: cast --version says $printed, the source $version" >&2; exit 1; }
}

# Lays the files out under $1 with prefix $2.
stage() {
    local root="$1" prefix="$2" product
    local share="$root$prefix/share"
    for product in "${products[@]}"; do
        install -D -m 0755 "$scratch/release/$product" "$root$prefix/bin/$product"
        strip --strip-unneeded "$root$prefix/bin/$product"
    done
    mkdir -p "$share/man/man1"
    "$scratch/release/generate-manual" "$scratch/release/cast" --multi-page \
        --output-directory "$share/man/man1" --authors "the swift-cast authors" >/dev/null
    "$scratch/release/generate-manual" "$scratch/release/cast-receiver" \
        --output-directory "$share/man/man1" --authors "the swift-cast authors" >/dev/null
    # One page per subcommand, named as `man cast-screen` finds it (git's style), not cast.screen.
    local page
    for page in "$share"/man/man1/cast.*.1; do
        [ -e "$page" ] || continue
        sed -i -E 's/^\.Dt CAST\.([A-Z-]+)/.Dt CAST-\1/' "$page"
        mv "$page" "${page%/*}/$(basename "$page" | sed 's/^cast\./cast-/')"
    done
    gzip -9 -n -f "$share"/man/man1/*.1
    local cast="$root$prefix/bin/cast"
    install -d "$share/bash-completion/completions" "$share/zsh/vendor-completions" "$share/fish/vendor_completions.d"
    "$cast" --generate-completion-script bash >"$share/bash-completion/completions/cast"
    "$cast" --generate-completion-script zsh >"$share/zsh/vendor-completions/_cast"
    "$cast" --generate-completion-script fish >"$share/fish/vendor_completions.d/cast.fish"
    install -D -m 0644 packaging/cast-ui.desktop "$share/applications/cast-ui.desktop"
    install -D -m 0644 packaging/cast-tray.desktop "$share/applications/cast-tray.desktop"
    # The tray's icons by the Cast button's state (CastTray's TrayMenu.iconName).
    local icon
    for icon in cast cast-connecting cast-connected; do
        install -D -m 0644 "packaging/$icon.svg" "$share/icons/hicolor/scalable/apps/$icon.svg"
    done
    install -D -m 0644 README.md "$share/doc/swift-cast/README.md"
    install -D -m 0644 CHANGELOG.md "$share/doc/swift-cast/CHANGELOG.md"
    install -D -m 0644 THIRD_PARTY_NOTICES.md "$share/doc/swift-cast/THIRD_PARTY_NOTICES.md"
    # The licence, in Debian's machine-readable form (it names /usr/share/common-licenses/Apache-2.0).
    install -D -m 0644 packaging/debian/copyright "$share/doc/swift-cast/copyright"
}

# The Debian packages that ship the shared libraries the binaries link
# themselves (their NEEDED entries; what those need, their packages declare).
dependencies() {
    local binary soname path package
    for binary in "$@"; do
        for soname in $(objdump -p "$binary" | awk '/NEEDED/ { print $2 }'); do
            path=$(ldd "$binary" | awk -v name="$soname" '$1 == name && $3 ~ /^\// { print $3 }')
            [ -n "$path" ] || continue
            package=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
            [ -n "$package" ] || package=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
            [ -n "$package" ] && echo "$package"
        done
    done | sort -u | paste -sd, | sed 's/,/, /g'
}

build
case "$mode" in
install)
    stage "${DESTDIR:-}" "${PREFIX:-/usr/local}"
    # Outside a Debian package the full text, which common-licenses may not hold.
    install -D -m 0644 LICENSE "${DESTDIR:-}${PREFIX:-/usr/local}/share/doc/swift-cast/LICENSE"
    echo "package: installed under ${DESTDIR:-}${PREFIX:-/usr/local}"
    ;;
deb)
    arch=$(dpkg --print-architecture)
    root="$scratch/deb-root"
    rm -rf "$root"
    stage "$root" /usr
    mkdir -p "$root/DEBIAN"
    cat >"$root/DEBIAN/control" <<EOF
Package: swift-cast
Version: $version
Architecture: $arch
Maintainer: swift-cast developers <swift-cast@localhost>
Depends: $(dependencies "$root/usr/bin/cast" "$root/usr/bin/cast-receiver")
Recommends: ffmpeg, pipewire, xdg-desktop-portal
Section: video
Priority: optional
Installed-Size: $(du -sk "$root/usr" | cut -f1)
Description: Google Cast sender for Linux
 cast finds Cast devices, plays media on them, mirrors the screen and the
 desktop's sound over Cast Streaming, and controls them from the desktop's
 tray, a terminal UI or the desktop's media keys. cast-receiver is a Cast receiver emulator for
 testing senders.
EOF
    deb="$scratch/swift-cast_${version}_$arch.deb"
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
    echo "package: $deb ($(du -h "$deb" | cut -f1))"
    ;;
*)
    echo "usage: scripts/package.sh install|deb" >&2
    exit 64
    ;;
esac
