#!/usr/bin/env bash
# Installs the system packages the build and the tests need, when missing.
# Idempotent and quiet when everything is present; installs through apt-get
# (directly as root, through sudo otherwise); names the missing packages and
# fails where it cannot install them.
set -euo pipefail

# Debian package → why it is needed.
packages=(
    libvpx-dev          # CVPX: VP8 encoder/decoder
    libopenh264-dev     # CH264: H.264 encoder (Cisco's OpenH264, BSD-2-Clause)
    libaom-dev          # CAOM: AV1 encoder (libaom's realtime mode, BSD-2-Clause)
    libavcodec-dev      # CAVCodec (the emulator): FFmpeg's H.264 decoder, one we did not write
    libopus-dev         # COpus: Opus encoder/decoder
    libsamplerate0-dev  # CSampleRate: audio resampling
    libssl-dev          # COpenSSL: AES-128-CTR frame crypto
    libyuv-dev          # CYUV: scaling and 4:2:0 conversion (letterboxing, NV12 → I420)
    libxcb1-dev         # CXCB (CastCapture): X11 screen capture through XCB…
    libxcb-shm0-dev     #   …MIT-SHM, pixels through shared memory
    libxcb-xfixes0-dev  #   …XFixes, the cursor image
    libxcb-damage0-dev  #   …DAMAGE, what changed on screen
    libxcb-randr0-dev   #   …RandR, monitors by name
    libpulse-dev        # CPulse (CastCapture): the desktop's sound through libpulse
    libpipewire-0.3-dev # CPipeWire (CastCapture): Wayland screen-cast streams
    libdbus-1-dev       # CDBus (CastCapture): the XDG desktop portal
    xvfb                # capture tests: a real X server, started by the tests
    sway                # Wayland session tests: a wlroots desktop, headless, run unprivileged…
    xwayland            #   …with Xwayland, whose black root X capture must refuse
    pulseaudio          # capture tests: a real sound server, started by the tests
    pulseaudio-utils    # capture tests: pacat plays the test tone into it
    dbus-daemon         # portal and MPRIS tests: a session bus, started by the tests
    dbus-bin            # MPRIS tests: dbus-send, an independent D-Bus client
    playerctl           # MPRIS tests: the desktop's usual MPRIS client (status bars read players through it)
    pipewire-bin        # portal tests: a PipeWire daemon, started by the tests…
    wireplumber         #   …and its session manager, which links the capture stream
    pipewire-pulse      # speakers tests: PipeWire's pulse server, the sound server most desktops run
    python3-dbus        # portal tests: the screen-cast portal's stand-in (Debian's python3)…
    python3-gi          #   …and its GLib main loop
    xdg-desktop-portal  # hermetic tests: the real portal is installed (its D-Bus service file too),
    xdg-desktop-portal-wlr #   as on a desktop, so every run proves a test's bus never activates it
    x11-xserver-utils   # real-portal tests: xhost lets the test draw on the desktop's Xwayland
    mutter              # real-portal tests: GNOME's compositor, headless with a virtual monitor…
    xdg-desktop-portal-gnome #   …and its screen-cast portal backend
    libglib2.0-bin      #   …whose permission store gdbus fills with a grant
    kwin-wayland        # real-portal tests: KDE's compositor, on its virtual backend…
    xdg-desktop-portal-kde #   …and its screen-cast portal backend…
    qtwayland5          #   …which talks to KWin through Qt's Wayland platform
    dpkg-dev            # real-portal tests: apt-get source unpacks xdg-desktop-portal-wlr's source…
    meson               #   …which is built with meson and ninja…
    ninja-build         #   …
    libinih-dev         #   …against its build dependencies (Debian's Build-Depends)…
    libgbm-dev          #   …
    libdrm-dev          #   …
    libwayland-dev      #   …
    wayland-protocols   #   …
    libsystemd-dev      #   …(sd-bus)
    libegl-dev          # CEGL (the EGL sample): EGL and OpenGL ES 2 headers…
    libgles-dev         #   …
    libegl-mesa0        #   …Mesa's EGL, whose surfaceless platform needs no window or GPU…
    libgl1-mesa-dri     #   …and its software renderer (llvmpipe)
    pkg-config          # SwiftPM finds the libraries above through it
    curl                # media-server tests: an independent HTTP client (and libcurl for the emulator's fetches)
    ffmpeg              # cast play: ffprobe reads codecs, ffmpeg converts what a device cannot play (and makes test films)
    iproute2            # discovery tests: network namespaces and veth pairs (`ip netns`)
    nftables            # unicast discovery tests: multicast dropped inside a test namespace
    avahi-daemon        # discovery tests: the desktop's mDNS stack beside ours, in a test namespace…
    avahi-utils         #   …with avahi-publish and avahi-browse, its own clients
    python3-pip         # interop tests: pip installs python-zeroconf and pychromecast
    tmux                # cast ui tests: a real terminal to type into and read back
    gdb                 # test scripts: every thread of a test run that went over its time limit
)

# The independent peers of the interop tests, from PyPI: python-zeroconf (mDNS,
# discovery tests), pychromecast (a Cast sender, session tests) and yt-dlp
# (web pages' videos for cast play; its generic extractor reads a local page).
# Installed at the end, once python3 and pip are certainly there.
install_python_peers() {
    local entry module package
    for entry in zeroconf:zeroconf pychromecast:pychromecast yt_dlp:yt-dlp; do
        module="${entry%%:*}"
        package="${entry#*:}"
        python3 -c "import $module" 2>/dev/null && continue
        echo "setup: installing $package (pip)" >&2
        python3 -m pip install --quiet --disable-pip-version-check "$package" 2>/dev/null \
            || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$package" \
            || echo "setup: pip could not install $package; its tests will be skipped." >&2
    done
}

# xdg-desktop-portal-wlr from Debian's source with one change
# (scripts/patches/xdg-desktop-portal-wlr-shm-without-gpu.patch: Debian 12's
# binary cannot cast from a compositor without a GPU), for the tests that
# mirror a headless sway through the real portal. Built once, into
# $patched_portal; the tests find it there. Needs the build tools above.
patched_portal=/usr/local/libexec/cast-tests/xdg-desktop-portal-wlr
build_patched_portal() {
    [ -x "$patched_portal" ] && return 0
    echo "setup: building xdg-desktop-portal-wlr from Debian's source with scripts/patches/" >&2
    local sources=/etc/apt/sources.list.d/cast-tests-source.sources work patch
    patch="$(cd "$(dirname "$0")" && pwd)/patches/xdg-desktop-portal-wlr-shm-without-gpu.patch"
    if ! apt-get source --print-uris xdg-desktop-portal-wlr >/dev/null 2>&1; then
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            | "${as_root[@]}" tee "$sources" >/dev/null
        "${as_root[@]}" apt-get update -qq >/dev/null || { echo "setup: apt-get update failed (source index)" >&2; return 1; }
    fi
    work="$(mktemp -d)"
    (
        cd "$work" && apt-get source -qq xdg-desktop-portal-wlr >/dev/null 2>&1 && cd xdg-desktop-portal-wlr-*/ \
            && patch -p1 --quiet <"$patch" \
            && meson setup -Dman-pages=disabled -Dsystemd=disabled build >/dev/null \
            && ninja -C build >/dev/null \
            && "${as_root[@]}" install -D -m 755 build/xdg-desktop-portal-wlr "$patched_portal"
    ) || { echo "setup: could not build the patched xdg-desktop-portal-wlr (see above)" >&2; rm -rf "$work"; return 1; }
    rm -rf "$work"
}

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then as_root=(); else as_root=(sudo -n); fi
    build_patched_portal
    install_python_peers
    exit 0
fi

fail() {
    echo "setup: cannot install the missing system packages: ${missing[*]}" >&2
    echo "setup: $1" >&2
    echo "setup: install them yourself, e.g. 'sudo apt-get install ${missing[*]}', then run make again." >&2
    exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available on this machine."
if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    fail "not root, and sudo is unavailable or needs a password."
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# No package may start its service while it installs (policy-rc.d, exit 101):
# avahi-daemon would announce this machine on its real interfaces, and only
# the tests start it, inside their own namespaces. An existing policy stays.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
    "${as_root[@]}" chmod 755 "$policy"
    trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" apt-get update -qq >/dev/null || fail "apt-get update failed."
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "apt-get install failed."
install_python_peers
build_patched_portal
