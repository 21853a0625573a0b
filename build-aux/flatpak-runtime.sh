#!/bin/sh
# Builds a Flatpak runtime and SDK from Debian 12 (bookworm) packages and
# commits them to a local OSTree repository, for building and running
# the app where no Flatpak remote (Flathub, the GNOME runtime) can be
# reached. The runtime id says what it is: org.kinescope.Debian12.Platform
# and org.kinescope.Debian12.Sdk, branch 12. One debootstrap tree serves
# as both: the Platform is the SDK, so the app runs next to the compiler
# it was built with, which is harmless for a check.
#
# Usage: flatpak-runtime.sh CACHE_DIR
#   Writes CACHE_DIR/runtime-repo; reuses it when both refs are there,
#   and the package tree CACHE_DIR/runtime-tree when its packages are.
#   Needs root (debootstrap and chroot), debootstrap and flatpak.
#   KS_DEBIAN_MIRROR overrides http://deb.debian.org/debian.
set -eu

cache=$1
repo=$cache/runtime-repo
tree=$cache/runtime-tree
mirror=${KS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
arch=$(flatpak --default-arch)
platform=org.kinescope.Debian12.Platform
sdk=org.kinescope.Debian12.Sdk
branch=12

# What the manifest's modules and the app build with (the GNOME SDK's
# share of it), what the app loads at run time, and flatpak-spawn.
# No dconf backend: inside the sandbox GSettings keep a keyfile under
# ~/.var/app, as with the GNOME runtime without dconf access.
packages="build-essential pkg-config meson ninja-build cmake autoconf automake
  libtool nasm gettext python3 elfutils file
  libglib2.0-dev libglib2.0-bin libgtk-4-dev libgtk-4-bin libadwaita-1-dev
  libsqlite3-dev zlib1g-dev
  desktop-file-utils appstream appstream-util shared-mime-info libxml2-utils
  flatpak-xdg-utils fonts-dejavu-core adwaita-icon-theme hicolor-icon-theme
  librsvg2-common"

if [ -d "$repo" ] &&
   ostree --repo="$repo" rev-parse "runtime/$sdk/$arch/$branch" >/dev/null 2>&1 &&
   ostree --repo="$repo" rev-parse "runtime/$platform/$arch/$branch" >/dev/null 2>&1; then
  echo "runtime: reusing $repo"
  exit 0
fi

stamp=$cache/runtime-tree.packages
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$packages" ]; then
  [ "$(id -u)" = 0 ] || { echo "runtime: debootstrap needs root" >&2; exit 1; }
  command -v debootstrap >/dev/null || { echo "runtime: debootstrap is not installed" >&2; exit 1; }

  rm -rf "$tree" "$stamp"
  mkdir -p "$cache"
  echo "runtime: debootstrap bookworm into $tree"
  debootstrap --variant=minbase --arch=amd64 bookworm "$tree" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; exit 1; }

  # Install inside the tree; no services start in a chroot.
  printf '#!/bin/sh\nexit 101\n' >"$tree/usr/sbin/policy-rc.d"
  chmod 755 "$tree/usr/sbin/policy-rc.d"
  mount -t proc proc "$tree/proc"
  trap 'umount "$tree/proc" 2>/dev/null || true' EXIT
  # shellcheck disable=SC2086
  chroot "$tree" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
    apt-get install -y -q --no-install-recommends $packages >"$cache/apt.log" 2>&1 ||
    { tail -20 "$cache/apt.log" >&2; exit 1; }
  chroot "$tree" apt-get clean
  umount "$tree/proc"
  trap - EXIT
  rm -f "$tree/usr/sbin/policy-rc.d"
  printf '%s' "$packages" >"$stamp"
else
  echo "runtime: reusing $tree"
fi

# The app's libraries, for the ld.so.cache flatpak makes for each app.
echo /app/lib >"$tree/etc/ld.so.conf.d/00-flatpak-app.conf"
# Debian keeps flatpak-spawn out of PATH; the GNOME runtime, which the
# app expects, has it in /usr/bin.
ln -sf ../libexec/flatpak-xdg-utils/flatpak-spawn "$tree/usr/bin/flatpak-spawn"

# A runtime is /usr, with /etc as /usr/etc (flatpak links it to /etc).
build=$cache/runtime-build
for id in $sdk $platform; do
  rm -rf "$build"
  mkdir -p "$build"
  cp -a "$tree/usr" "$build/files"
  cp -a "$tree/etc" "$build/files/etc"
  # Host files flatpak mounts over these; the tree's would be stale.
  rm -f "$build/files/etc/passwd" "$build/files/etc/group" "$build/files/etc/machine-id" \
        "$build/files/etc/resolv.conf" "$build/files/etc/hosts" "$build/files/etc/localtime"
  # flatpak-check.sh's source list, for apt-get source in the tree.
  rm -f "$build/files/etc/apt/sources.list.d/kinescope-src.list"
  # flatpak build-init makes a runtime only from an installed SDK: the
  # first one's metadata is written by hand.
  cat >"$build/metadata" <<EOF
[Runtime]
name=$id
runtime=$platform/$arch/$branch
sdk=$sdk/$arch/$branch
EOF
  flatpak build-export --runtime --files=files "$repo" "$build" "$branch" >/dev/null
done
rm -rf "$build"
flatpak build-update-repo "$repo" >/dev/null
echo "runtime: $platform and $sdk//$branch in $repo"
