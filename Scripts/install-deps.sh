#!/bin/sh
# install-deps.sh: the Debian packages a make target needs; `make deps` and
# every deps-* target run it with their package lists.
#
#   Scripts/install-deps.sh [--architectures 'ARCH...'] [--command COMMAND PACKAGE]...
#                           [--pkg-config PKG_CONFIG] [--sources DIR 'SOURCE...'] PACKAGE...
#
# Quiet when everything is there. As root it installs what is missing;
# otherwise it stops and prints the commands to run. A PACKAGE may name an
# architecture (libffi-dev:arm64); --architectures names the dpkg
# architectures such packages need, and each one not yet configured is added
# (dpkg multiarch) before the package lists are read. --command adds PACKAGE
# when COMMAND is not found (a C compiler, a C++ compiler and nm, which a fresh
# Debian with only the Swift toolchain may lack). A package list that fails to
# download (a foreign architecture's adds more of them, and a mirror may be
# mid-sync) does not stop the install: apt-get install then says which package
# it cannot find.
#
# --sources DIR 'SOURCE...' also brings Debian source packages, for what a
# build compiles itself (the musl build's cmocka): each SOURCE's upstream
# tarball, checked by apt against the archive's signed index, is unpacked in
# DIR/SOURCE, once. apt-get source reads deb-src entries; they are made from
# the system's own deb entries in an apt configuration of DIR's own, so the
# system's sources and package lists stay as they are.
#
# Off Debian (no dpkg-query) nothing is installed: it checks through
# pkg-config that libffi and cmocka are there, and otherwise names the Debian
# packages to look for under the system's own names.
set -u

architectures_wanted=""
pkg_config=pkg-config
commands=""
source_dir=""
sources=""
while [ $# -gt 0 ]; do
    case $1 in
        --architectures) architectures_wanted=$2; shift 2 ;;
        --sources) source_dir=$2; sources=$3; shift 3 ;;
        --pkg-config) pkg_config=$2; shift 2 ;;
        --command)
            command -v "$2" >/dev/null 2>&1 || commands="$commands $3"
            shift 3 ;;
        --) shift; break ;;
        -*) echo "usage: $0 [--architectures 'ARCH...'] [--command COMMAND PACKAGE]..." \
                 "[--pkg-config PKG_CONFIG] [--sources DIR 'SOURCE...'] PACKAGE..." >&2; exit 2 ;;
        *) break ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    "$pkg_config" --exists libffi cmocka 2>/dev/null || {
        echo "error: this is not Debian; install libffi, cmocka and pkg-config" \
             "with your package manager (Debian: $*)" >&2; exit 1; }
    exit 0
fi

# Brings the --sources packages not yet unpacked in $source_dir.
fetch_sources() {
    wanted=""
    for source in $sources; do
        [ -d "$source_dir/$source" ] || wanted="$wanted $source"
    done
    [ -n "$wanted" ] || return 0
    # apt reads its paths relative to its own directories: made absolute.
    mkdir -p "$source_dir" && source_dir=$(cd "$source_dir" && pwd) || return 1
    apt_dir="$source_dir/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" || return 1
    : > "$apt_dir/sources.list"
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$file" >> "$apt_dir/sources.list"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] && sed 's/^Types:.*/Types: deb-src/' "$file" > "$apt_dir/sources.list.d/${file##*/}"
    done
    set -- -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d" \
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root
    echo "make deps: fetching the Debian sources of$wanted into $source_dir"
    apt-get -qq "$@" update || echo "make deps: some source lists failed to download;" \
        "fetching from those apt-get has" >&2
    for source in $wanted; do
        (cd "$source_dir" && apt-get -qq "$@" source --download-only "$source") || return 1
        # $source_dir holds each source's files once; the newest is taken.
        # shellcheck disable=SC2012
        tarball=$(ls -t "$source_dir/${source}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n 1)
        [ -n "$tarball" ] || { echo "error: no upstream tarball for $source in $source_dir" >&2; return 1; }
        mkdir -p "$source_dir/$source.new" && tar -xf "$tarball" -C "$source_dir/$source.new" --strip-components=1 &&
            mv "$source_dir/$source.new" "$source_dir/$source" || return 1
    done
}

missing=""
for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q ' installed$' \
        || missing="$missing $package"
done
missing="${missing}${commands}"
missing="${missing# }"
if [ -z "$missing" ]; then
    fetch_sources || exit 1
    exit 0
fi

architectures=""
for architecture in $architectures_wanted; do
    { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qxF "$architecture" \
        || architectures="$architectures $architecture"
done

if [ "$(id -u)" = 0 ]; then
    echo "make deps: installing $missing"
    export DEBIAN_FRONTEND=noninteractive
    for architecture in $architectures; do
        echo "make deps: adding the $architecture architecture"
        dpkg --add-architecture "$architecture" || exit 1
    done
    apt-get update -qq || echo "make deps: some package lists failed to download;" \
        "installing from those apt-get has" >&2
    # $missing is a list of package names, split on purpose.
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
    fetch_sources || exit 1
else
    echo "error: missing Debian packages: $missing" >&2
    echo "install them with:" >&2
    for architecture in $architectures; do
        echo "    sudo dpkg --add-architecture $architecture" >&2
    done
    if [ -n "$architectures" ]; then echo "    sudo apt-get update" >&2; fi
    echo "    sudo apt-get install $missing" >&2
    exit 1
fi
