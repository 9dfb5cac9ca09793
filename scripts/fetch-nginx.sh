#!/usr/bin/env bash
# Makes an nginx binary available at .cache/nginx/usr/sbin/nginx for the scale-out scenario tests, without root and
# without installing anything: installing Debian's nginx package would start a root nginx on port 80, so the .deb is
# downloaded (`apt-get download`) and unpacked (`dpkg -x`) into the folder, and the tests run it as their own process.
#
# Usage: scripts/fetch-nginx.sh [--force]
#   --force  fetches again even when .cache/nginx already holds a working nginx.
#
# Package lists: the system's are used first. When they are missing or stale (a slim image, `apt-get download` cannot
# find or fetch the package) and this user cannot write /var/lib/apt, the script runs `apt-get update` into a private
# lists/cache folder inside its temporary folder (Dir::State::Lists, Dir::Cache) and downloads with those lists; that
# needs no root. The temporary folder (about 20 MB of lists in that case) is removed at exit.
#
# Shared libraries: the library packages nginx depends on that are not installed here are downloaded and unpacked into
# .cache/nginx too (libc6 excepted: a second C library cannot be loaded next to the system's); whoever runs the binary
# then sets LD_LIBRARY_PATH to the .cache/nginx lib folders (test/scenarios/scale-out/nginx.balancer.ts does). `ldd`
# checks at the end that every library resolves.
#
# Needs a Debian-based system (apt-get, apt-cache, dpkg-deb, dpkg-query) with access to its package repositories.
# Elsewhere, install nginx by other means and point NGINX_BIN at it.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/.cache/nginx"
BIN_PATH="usr/sbin/nginx"
PACKAGE="nginx"

fail() {
  echo "fetch-nginx: $*" >&2
  exit 1
}

force=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h | --help)
      sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$arg' (usage: scripts/fetch-nginx.sh [--force])" ;;
  esac
done

# The multiarch lib folders Debian's library packages unpack into (x86_64-linux-gnu, aarch64-linux-gnu...).
library_path() {
  local root="$1" dirs=() dir
  for dir in "$root"/lib/*-linux-gnu* "$root"/usr/lib/*-linux-gnu*; do
    [[ -d "$dir" ]] && dirs+=("$dir")
  done
  local IFS=:
  echo "${dirs[*]}"
}

# Prints "nginx/<version>" when the binary under $1 runs, fails otherwise.
nginx_version() {
  local root="$1" output
  [[ -x "$root/$BIN_PATH" ]] || return 1
  output="$(LD_LIBRARY_PATH="$(library_path "$root")" "$root/$BIN_PATH" -v 2>&1)" || return 1
  [[ "$output" =~ nginx/([0-9][0-9.]*) ]] || return 1
  echo "nginx/${BASH_REMATCH[1]}"
}

report() {
  local version="$1" libs
  libs="$(library_path "$DEST")"
  if [[ -n "$(find "$DEST" -name '*.so*' -print -quit)" ]]; then
    echo "$version at $DEST/$BIN_PATH (run with LD_LIBRARY_PATH=$libs)"
  else
    echo "$version at $DEST/$BIN_PATH"
  fi
}

if [[ $force -eq 0 ]] && version="$(nginx_version "$DEST")"; then
  report "$version"
  exit 0
fi

for tool in apt-get apt-cache dpkg-deb dpkg-query ldd; do
  command -v "$tool" >/dev/null ||
    fail "'$tool' not found: this script needs a Debian-based system; elsewhere install nginx and set NGINX_BIN to it"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/fetch-nginx.XXXXXX")"
# Unpacked next to its destination, so that the final move is a rename on the same file system.
mkdir -p "$(dirname "$DEST")"
stage="$(mktemp -d "$DEST.staging.XXXXXX")"
trap 'rm -rf "$work" "$stage"' EXIT
mkdir -p "$work/debs"

apt_options=(-q)
# As root, apt hands downloads to its sandbox user _apt, who cannot write the private temporary folder.
[[ $EUID -ne 0 ]] || apt_options+=(-o APT::Sandbox::User=root)

download() {
  (cd "$work/debs" && apt-get "${apt_options[@]}" download "$@") >"$work/apt.log" 2>&1
}

if ! download "$PACKAGE"; then
  echo "fetch-nginx: 'apt-get download $PACKAGE' failed with the system's package lists; updating private lists" >&2
  mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
  apt_options+=(-o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
  apt-get "${apt_options[@]}" update >"$work/update.log" 2>&1 ||
    fail "'apt-get update' into a private folder failed (are the Debian repositories reachable?):
$(tail -n 20 "$work/update.log")"
  # apt-get update exits 0 when a repository cannot be reached; its warnings then explain the failed download.
  download "$PACKAGE" || fail "'apt-get download $PACKAGE' failed after updating private package lists:
$(tail -n 20 "$work/apt.log")
apt-get update said:
$(grep -E '^(W|E|Err):' "$work/update.log" | tail -n 20 || true)"
fi

# Library packages nginx depends on (libc6 excepted, see above) that this system does not have installed.
missing=()
while read -r kind name; do
  [[ "$kind" == "Depends:" ]] || continue
  name="${name%%:*}"
  [[ "$name" =~ ^(lib|zlib) && "$name" != libc6 ]] || continue
  status="$(dpkg-query -W -f='${db:Status-Status}' "$name" 2>/dev/null || true)"
  [[ "$status" == installed ]] || missing+=("$name")
done < <(apt-cache "${apt_options[@]}" depends --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "$PACKAGE" 2>/dev/null)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "fetch-nginx: libraries not installed here, fetched too: ${missing[*]}" >&2
  download "${missing[@]}" || fail "'apt-get download ${missing[*]}' failed:
$(tail -n 20 "$work/apt.log")"
fi

shopt -s nullglob
debs=("$work"/debs/*.deb)
[[ ${#debs[@]} -gt 0 ]] || fail "apt-get reported success but downloaded no .deb:
$(tail -n 20 "$work/apt.log")"
for deb in "${debs[@]}"; do
  dpkg-deb -x "$deb" "$stage" || fail "could not unpack $(basename "$deb")"
  echo "fetch-nginx: unpacked $(basename "$deb") ($(stat -c %s "$deb") bytes)" >&2
done
[[ -x "$stage/$BIN_PATH" ]] || fail "the $PACKAGE package holds no $BIN_PATH (package layout changed?)"

unresolved="$(LD_LIBRARY_PATH="$(library_path "$stage")" ldd "$stage/$BIN_PATH" 2>&1 | grep 'not found' || true)"
[[ -z "$unresolved" ]] || fail "nginx needs shared libraries that neither this system nor its dependencies provide:
$unresolved"
nginx_version "$stage" >/dev/null || fail "the unpacked nginx does not run:
$(LD_LIBRARY_PATH="$(library_path "$stage")" "$stage/$BIN_PATH" -v 2>&1 || true)"

# Replaced by a rename, so an interrupted run never leaves a half-unpacked folder behind.
rm -rf "$DEST"
chmod 755 "$stage"
mv "$stage" "$DEST"
report "$(nginx_version "$DEST")"
