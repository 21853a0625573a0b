#!/bin/sh
# Installs what Kinescope needs to build and test on Debian 12 (bookworm).
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
PKGS="build-essential meson ninja-build pkg-config gettext itstool
  libglib2.0-dev libglib2.0-bin libgtk-4-dev libadwaita-1-dev
  libsqlite3-dev sqlite3 libyajl-dev zlib1g-dev libisal-dev
  xvfb xauth dbus-x11 at-spi2-core
  desktop-file-utils appstream shared-mime-info python3
  clang-14 libclang-rt-14-dev
  xdg-utils flatpak-builder libxml2-utils
  libxtst-dev
  fonts-wqy-microhei"
missing=
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
