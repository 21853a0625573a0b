#!/bin/sh
# Builds the Flatpak from flatpak/org.kinescope.Kinescope.json on a machine
# that reaches no Flatpak remote, installs it for a user and checks the
# app in its sandbox. Not part of the test suite: it downloads a few
# hundred MB of Debian packages and takes minutes.
#
#  1. build-aux/flatpak-runtime.sh: a runtime and SDK from Debian 12
#     packages, org.kinescope.Debian12.{Platform,Sdk}//12.
#  2. The modules' sources: Debian source packages (yajl, libisal, with
#     apt-get source in that tree, which checks them against Debian's
#     signed index) and the CUDA headers of a local toolkit (KS_CUPTI_ROOT,
#     /usr/local/cuda).
#  3. build-aux/flatpak-variant.py derives the manifest that uses them.
#  4. flatpak-builder, a bundle, installed for a user.
#  5. Under Xvfb, with a private session bus on which flatpak-session-helper
#     is activated, the installed app: opens a trace given on its command
#     line and one in the home folder through the exported desktop file;
#     its MIME type is the default of that desktop file; the thumbnailer
#     makes a PNG; Profile > Record New Session runs kinescope-cli record on
#     the host through flatpak-spawn --host, the host program loads the
#     Flatpak's collector library and the recording opens in the window; a
#     preference written by the app survives a restart.
#
# Usage: build-aux/flatpak-check.sh [--checks-only]
#   --checks-only     skips 1-4: checks the app a full run installed
#   KS_FLATPAK_CACHE  downloads, build trees, the test home and the log
#                     (default ~/.cache/kinescope-flatpak; not in the tree)
#   KS_CUPTI_ROOT     CUDA toolkit whose headers build the collector
# Needs root for debootstrap the first time (the runtime is then reused),
# and on the host: flatpak, flatpak-builder, elfutils, ostree, debootstrap,
# Xvfb, dbus-daemon, xwininfo, xdotool, gio, meson, ninja, python3.
# Prints a line per check and, last, "flatpak: N passed, N failed".
set -u
# The runtime has no locales but C.UTF-8; the host's would only warn.
export LC_ALL=C.UTF-8
unset LANGUAGE

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KS_FLATPAK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kinescope-flatpak}
cupti_root=${KS_CUPTI_ROOT:-/usr/local/cuda}
app=org.kinescope.Kinescope
app_object=/org/kinescope/Kinescope
sdk=org.kinescope.Debian12.Sdk
platform=org.kinescope.Debian12.Platform
checks=12
checks_only=false
if [ "${1:-}" = --checks-only ]; then
  checks_only=true
  checks=8
fi
passed=0
failed=0
n=0
pids=

case "$cache" in
  "$root"|"$root"/*) echo "KS_FLATPAK_CACHE must be outside the source tree" >&2; exit 2 ;;
esac
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log=$cache/check.log
: >"$log"

report ()
{
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    passed=$((passed + 1))
    echo "ok $n - $2"
  else
    failed=$((failed + 1))
    echo "not ok $n - $2 (see $log)"
  fi
}

# check NAME COMMAND...: runs COMMAND, its output to the log.
check ()
{
  name=$1
  shift
  echo "== $((n + 1)): $name" >>"$log"
  "$@" >>"$log" 2>&1
  report $? "$name"
}

summary ()
{
  cleanup
  echo "flatpak: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit $?
}

# A build step failed: what depends on it cannot run and counts as failed.
give_up ()
{
  echo "# the remaining checks need the step that failed" >>"$log"
  failed=$((failed + checks - n))
  summary
}

# Stops what was started, the latest first (the apps, then the bus, then
# the X server), and waits for it: nothing of it prints after the summary.
cleanup ()
{
  reversed=
  for pid in $pids; do
    reversed="$pid $reversed"
  done
  for pid in $reversed; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  pids=
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for SECONDS COMMAND...: polls COMMAND until it succeeds.
wait_for ()
{
  ticks=$(($1 * 10))
  shift
  until "$@" >/dev/null 2>&1; do
    ticks=$((ticks - 1))
    [ "$ticks" -gt 0 ] || { echo "gave up waiting for: $*"; return 1; }
    sleep 0.1
  done
}

# The host's tools, from Debian's packages when missing (as
# build-aux/install-deps.sh installs the build's).
host_pkgs="flatpak flatpak-builder elfutils ostree debootstrap xvfb dbus x11-utils xdotool libglib2.0-bin
  meson ninja-build python3"
missing=
for p in $host_pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing ||
    { echo "flatpak-check: could not install$missing" >&2; exit 2; }
fi
for tool in flatpak flatpak-builder eu-strip ostree Xvfb dbus-daemon xwininfo xdotool gio meson ninja python3 gdbus; do
  command -v "$tool" >/dev/null || { echo "flatpak-check: $tool is not installed" >&2; exit 2; }
done

# -- the build ---------------------------------------------------------

fetch_sources ()
{
  tree=$cache/runtime-tree
  src=$cache/sources
  mkdir -p "$src"
  [ -d "$tree" ] || { echo "no $tree: remove $cache/runtime-repo to rebuild it"; return 1; }
  if [ ! -f "$src/debian-sources.done" ]; then
    sed -n 's/^deb /deb-src /p' "$tree/etc/apt/sources.list" >"$tree/etc/apt/sources.list.d/kinescope-src.list"
    chroot "$tree" apt-get update -q || return 1
    rm -rf "$tree/srv/sources"
    mkdir -p "$tree/srv/sources"
    chroot "$tree" chown _apt /srv/sources
    chroot "$tree" sh -c 'cd /srv/sources && apt-get source -q --download-only yajl libisal' || return 1
    cp "$tree"/srv/sources/* "$src/" || return 1
    touch "$src/debian-sources.done"
  fi
  yajl=$(ls "$src"/yajl_*.orig.tar.* | head -n 1)
  isal=$(ls "$src"/libisal_*.orig.tar.* | head -n 1)
  [ -f "$yajl" ] && [ -f "$isal" ] || { echo "no orig tarballs in $src"; return 1; }

  # The CUPTI, CUDA runtime and NVTX headers the manifest takes from
  # NVIDIA's wheels, laid out as the wheels lay them out.
  cuda=$src/cuda-headers.tar.gz
  if [ ! -f "$cuda" ]; then
    [ -f "$cupti_root/include/cupti.h" ] && [ -f "$cupti_root/include/nvtx3/nvToolsExt.h" ] ||
      { echo "no CUPTI headers in $cupti_root/include (set KS_CUPTI_ROOT)"; return 1; }
    tar -C "$cupti_root" --transform 's,^include,nvidia/cu13/include,' -czf "$cuda.tmp" include &&
      mv "$cuda.tmp" "$cuda" || return 1
  fi

  python3 - "$yajl" "$isal" "$cuda" >"$cache/sources.json" <<'EOF'
import hashlib, json, sys
def archive(path, **extra):
    with open(path, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return dict(type='archive', path=path, sha256=digest, **extra)
yajl, isal, cuda = sys.argv[1:4]
json.dump({'yajl': [archive(yajl)], 'isa-l': [archive(isal)],
           'cuda-headers': [archive(cuda, **{'strip-components': 0})]}, sys.stdout, indent=2)
EOF
}

variant=$cache/org.kinescope.Kinescope.json

if ! $checks_only; then
  check "runtime and SDK built from Debian 12 packages" "$root/build-aux/flatpak-runtime.sh" "$cache"
  [ "$failed" = 0 ] || give_up
  check "module sources from Debian source packages and local CUDA headers" fetch_sources
  [ "$failed" = 0 ] || give_up
  check "manifest variant derived from the real manifest" \
    python3 "$root/build-aux/flatpak-variant.py" "$root/flatpak/$app.json" "$cache/sources.json" "$variant"
  [ "$failed" = 0 ] || give_up
fi

# Flatpak's user installation, and a fresh home for the app.
export FLATPAK_USER_DIR="$cache/flatpak-user"
export HOME="$cache/home"
export XDG_RUNTIME_DIR="$cache/run"
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS
export XDG_DATA_DIRS="$FLATPAK_USER_DIR/exports/share:/usr/local/share:/usr/share"
rm -rf "$HOME" "$XDG_RUNTIME_DIR"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

build_app ()
{
  flatpak --user remote-add --if-not-exists --no-gpg-verify kinescope-debian "file://$cache/runtime-repo" &&
    flatpak --user install -y --noninteractive --or-update kinescope-debian "$sdk//12" "$platform//12" &&
    (cd "$cache" && flatpak-builder --disable-rofiles-fuse --force-clean --state-dir="$cache/builder-state" \
       --repo="$cache/app-repo" "$cache/app-build" "$variant") &&
    flatpak build-bundle "$cache/app-repo" "$cache/kinescope.flatpak" "$app" &&
    flatpak --user install -y --noninteractive --reinstall --bundle "$cache/kinescope.flatpak" &&
    flatpak --user info "$app"
}
if $checks_only; then
  flatpak --user info "$app" >/dev/null || { echo "flatpak-check: $app is not installed: run it without --checks-only" >&2; exit 2; }
else
  check "flatpak-builder builds the manifest; the bundle installs for the user" build_app
  [ "$failed" = 0 ] || give_up
fi

# -- the sandbox -------------------------------------------------------

# kinescope-cli on the host: built without the collector, so the profiled
# program can only get the collector library from the Flatpak. A wrapper
# first on the session's PATH notes each start.
host_cli ()
{
  b=$cache/host-cli
  [ -f "$b/build.ninja" ] || meson setup "$b" "$root" -Dgui=disabled -Dcollector=disabled || return 1
  ninja -C "$b" src/cli/kinescope-cli || return 1
  mkdir -p "$cache/host-bin"
  cat >"$cache/host-bin/kinescope-cli" <<EOF
#!/bin/sh
echo "\$PWD: kinescope-cli \$* (KINESCOPE_INJECT_FALLBACK_DIR=\$KINESCOPE_INJECT_FALLBACK_DIR)" >>"$cache/host-cli.log"
exec "$b/src/cli/kinescope-cli" "\$@"
EOF
  chmod +x "$cache/host-bin/kinescope-cli"
  : >"$cache/host-cli.log"
}
check "kinescope-cli built for the host, without the collector" host_cli
[ "$failed" = 0 ] || give_up

# The X server and the session bus the sandbox gets.
rm -f "$cache/display"
Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$cache/display" 2>>"$log" &
pids="$pids $!"
wait_for 30 test -s "$cache/display" >>"$log" || give_up
export DISPLAY=":$(cat "$cache/display")"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
# flatpak-session-helper, activated on this bus, runs host commands with
# this environment: the host kinescope-cli comes first on its PATH.
env PATH="$cache/host-bin:$PATH" dbus-daemon --session --nofork \
  --address="$DBUS_SESSION_BUS_ADDRESS" >>"$log" 2>&1 &
pids="$pids $!"
wait_for 30 gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetId >>"$log" || give_up
# No GPU for GL here: GTK draws with cairo.
export GSK_RENDERER=cairo

app_data=$HOME/.var/app/$app
keyfile=$app_data/config/glib-2.0/settings/keyfile
app_pid=
recording=

# The X window of that title, and its size, as "ID WxH".
window ()
{
  xwininfo -root -tree | sed -n "s/^ *\(0x[0-9a-f]*\) \"$1\": ([^)]*) *\([0-9]*x[0-9]*\)+.*/\1 \2/p" | head -n 1
}
has_window ()
{
  [ -n "$(window "$1")" ]
}
# Mapped: until then the window takes no focus (xdotool: BadMatch).
viewable ()
{
  xwininfo -id "$1" | grep -q "Map State: IsViewable"
}
window_size_is ()
{
  [ "$(window "$1" | cut -d' ' -f2)" = "$2" ]
}

start_app ()
{
  flatpak run "$app" "$@" >>"$log" 2>&1 &
  app_pid=$!
  pids="$pids $app_pid"
}

# The app owns its id on the bus while it runs (gio launch does not wait
# for it, so its process id would not say).
app_gone ()
{
  ! gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner "$app" | grep -q true
}

quit_app ()
{
  gdbus call --session --dest "$app" --object-path "$app_object" \
    --method org.gtk.Actions.Activate quit '[]' '{}' >>"$log" 2>&1
  wait_for 30 app_gone
}

mkdir -p "$cache/traces" "$HOME/Traces" "$HOME/Recordings"
cp "$root/data/loader_bound.pt.trace.json.gz" "$cache/traces/command-line.pt.trace.json.gz"
cp "$root/data/loader_bound.pt.trace.json.gz" "$HOME/Traces/in-home.pt.trace.json.gz"

exports=$FLATPAK_USER_DIR/exports/share
desktop=$exports/applications/$app.desktop

exported ()
{
  grep -x "Exec=.*flatpak run .*--command=kinescope --file-forwarding $app @@ %F @@" "$desktop" &&
    grep -q "application/x-kinescope-trace" "$exports/mime/packages/$app.xml" &&
    grep -q "^MimeType=.*application/x-kinescope-trace;" "$desktop" &&
    test -f "$exports/icons/hicolor/scalable/apps/$app.svg"
}
check "desktop file, MIME type and icon exported" exported

# What a file manager asks: which application opens a .kscope.
mime_default ()
{
  gio mime application/x-kinescope-trace | tee /dev/stderr | grep -q "^Default application.*: $app.desktop"
}
check "the exported desktop file is the default for application/x-kinescope-trace" mime_default

thumbnail ()
{
  rm -f "$cache/thumbnail.png"
  flatpak run --command=kinescope-thumbnailer "$app" -s 256 \
    "$cache/traces/command-line.pt.trace.json.gz" "$cache/thumbnail.png" &&
    python3 "$root/build-aux/flatpak-check.py" png "$cache/thumbnail.png" 256
}
check "the thumbnailer makes a PNG in the sandbox" thumbnail

opens_command_line ()
{
  trace=$cache/traces/command-line.pt.trace.json.gz
  start_app "$trace"
  wait_for 60 has_window command-line.pt.trace.json.gz &&
    wait_for 30 python3 "$root/build-aux/flatpak-check.py" xbel \
      "$app_data/data/recently-used.xbel" "file://$trace" &&
    quit_app
}
check "opens a trace given on the command line" opens_command_line

# As a double-click in a file manager does: the exported desktop file
# started on the file.
opens_in_home ()
{
  gio launch "$desktop" "$HOME/Traces/in-home.pt.trace.json.gz" >>"$log" 2>&1 &
  app_pid=$!
  pids="$pids $app_pid"
  wait_for 60 has_window in-home.pt.trace.json.gz &&
    wait_for 30 python3 "$root/build-aux/flatpak-check.py" xbel \
      "$app_data/data/recently-used.xbel" "file://$HOME/Traces/in-home.pt.trace.json.gz" &&
    quit_app
}
check "opens a trace in the home folder through the desktop file" opens_in_home

# The Record dialog remembers its fields in GSettings: set them as a
# previous recording would have, open it with --record and press Start.
# sleep is the profiled program; -t osrt preloads the collector's library
# into it, which the host kinescope-cli takes from the Flatpak.
records_on_host ()
{
  mkdir -p "$(dirname "$keyfile")"
  cat >"$keyfile" <<EOF
[org/kinescope/Kinescope]
record-command='sleep 0.5'
record-directory='$HOME/Recordings'
record-trace=['osrt']
record-pytorch='none'
record-python-sampling=false
EOF
  start_app --record
  wait_for 60 has_window "Record New Session" || return 1
  id=$(window "Record New Session" | cut -d' ' -f1)
  wait_for 30 viewable "$id" &&
    xdotool windowfocus --sync "$id" key --clearmodifiers alt+s || return 1
  wait_for 60 sh -c "ls '$HOME/Recordings/'*.kscope" || return 1
  recording=$(ls "$HOME/Recordings/"*.kscope | head -n 1)
  cat "$cache/host-cli.log"
  grep -q "^$HOME/Recordings: kinescope-cli record .*(KINESCOPE_INJECT_FALLBACK_DIR=$FLATPAK_USER_DIR/app/$app/.*/files/lib/kinescope)" \
    "$cache/host-cli.log" &&
    wait_for 60 has_window "$(basename "$recording")" &&
    python3 "$root/build-aux/flatpak-check.py" osrt "$recording" nanosleep
}
check "Record runs kinescope-cli on the host; the recording opens" records_on_host

# The window's size is a setting, saved when it closes (Ctrl+W): in the
# sandbox it lands in the app's keyfile, and the next start reads it.
preferences_persist ()
{
  id=$(window "$(basename "$recording")" | cut -d' ' -f1)
  [ -n "$id" ] && wait_for 30 viewable "$id" || return 1
  xdotool windowsize --sync "$id" 1000 700 &&
    wait_for 30 window_size_is "$(basename "$recording")" 1000x700 &&
    xdotool windowfocus --sync "$id" key --clearmodifiers ctrl+w &&
    wait_for 30 app_gone &&
    python3 "$root/build-aux/flatpak-check.py" keyfile "$keyfile" window-width 1000 &&
    start_app &&
    wait_for 60 window_size_is Kinescope 1000x700 &&
    quit_app
}
check "a preference written in the sandbox survives a restart" preferences_persist

summary
