#!/bin/sh
# Print the path of a Python interpreter of version $1 (`infra/python.sh 3.13`), the Lambda
# runtime's version (infra/runtime.py), so `make package` compiles and checks the package with it
# whatever Python runs the build. Looks on PATH, then in pyenv's versions, then in build/; when none
# is there, unpacks Debian 13's python packages into build/python<version> (see docs/deploy.md:
# prebuilt, seconds to fetch; building CPython from source takes many minutes on this machine).
# `--debian` skips the search (the test of this fallback uses it).
set -eu
if [ "${1:-}" = "--debian" ]; then search=no; shift; else search=yes; fi
version=$1
root=$(cd "$(dirname "$0")/.." && pwd)
home="$root/build/python$version"
wrapper="$home/bin/python$version"

is_version() {
    [ -x "$1" ] && "$1" -c "import sys; sys.exit(sys.version[:len('$version') + 1] != '$version.')" 2>/dev/null
}

if [ "$search" = yes ]; then
    for candidate in "$(command -v "python$version" || true)" \
            "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version"*/bin/"python$version" "$wrapper"; do
        if is_version "$candidate"; then echo "$candidate"; exit 0; fi
    done
fi

# Debian 13 (trixie) ships python3.13 with the C library it was built against; both are unpacked
# side by side and the interpreter is started through that C library's own loader.
machine=$(uname -m)
case "$machine" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) echo "no Debian fallback for $machine" >&2; exit 1 ;; esac
apt="$home/apt"
rm -rf "$home" && mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$home/debs" "$home/bin"
# The archive this machine's apt already uses (its Debian sources), asked for the trixie suite.
mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\{1,\}\(http[^[:space:]]*\/debian\)[[:space:]].*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || { echo "no Debian archive in this machine's apt sources" >&2; exit 1; }
echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$apt/sources.list"
options="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=- -o Dir::State::Lists=$apt/lists
 -o Dir::Cache=$apt/cache -o Dir::State::Status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture=$arch -o APT::Sandbox::User=root -qq"
# shellcheck disable=SC2086
apt-get $options update >&2
packages="python$version-minimal libpython$version-minimal libpython$version-stdlib libc6 zlib1g libexpat1
 libssl3t64 libffi8 libbz2-1.0 liblzma5 libzstd1 libmpdec4 libuuid1 libsqlite3-0"
# shellcheck disable=SC2086
(cd "$home/debs" && apt-get $options download $packages >&2)
for deb in "$home"/debs/*.deb; do dpkg-deb -x "$deb" "$home"; done
rm -rf "$apt" "$home/debs"
libs="$home/usr/lib/$machine-linux-gnu"
loader=$(ls "$libs"/ld-linux-*.so.* | head -n 1)
cat > "$wrapper" <<EOF
#!/bin/sh
exec "$loader" --library-path "$libs" "$home/usr/bin/python$version" "\$@"
EOF
chmod +x "$wrapper"
is_version "$wrapper" || { echo "the unpacked python$version does not start" >&2; exit 1; }
echo "$wrapper"
