#!/bin/sh
# install-deps.sh: the Debian packages a make target needs; `make deps` and
# every deps-* target run it with their package lists.
#
#   Scripts/install-deps.sh [--architectures 'ARCH...'] [--command COMMAND PACKAGE]...
#                           [--pkg-config PKG_CONFIG] PACKAGE...
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
# Off Debian (no dpkg-query) nothing is installed: it checks through
# pkg-config that libffi and cmocka are there, and otherwise names the Debian
# packages to look for under the system's own names.
set -u

architectures_wanted=""
pkg_config=pkg-config
commands=""
while [ $# -gt 0 ]; do
    case $1 in
        --architectures) architectures_wanted=$2; shift 2 ;;
        --pkg-config) pkg_config=$2; shift 2 ;;
        --command)
            command -v "$2" >/dev/null 2>&1 || commands="$commands $3"
            shift 3 ;;
        --) shift; break ;;
        -*) echo "usage: $0 [--architectures 'ARCH...'] [--command COMMAND PACKAGE]..." \
                 "[--pkg-config PKG_CONFIG] PACKAGE..." >&2; exit 2 ;;
        *) break ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    "$pkg_config" --exists libffi cmocka 2>/dev/null || {
        echo "error: this is not Debian; install libffi, cmocka and pkg-config" \
             "with your package manager (Debian: $*)" >&2; exit 1; }
    exit 0
fi

missing=""
for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q ' installed$' \
        || missing="$missing $package"
done
missing="${missing}${commands}"
missing="${missing# }"
[ -n "$missing" ] || exit 0

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
