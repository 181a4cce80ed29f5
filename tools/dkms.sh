#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/dkms.sh {install|remove|status} [KVER] - install fabriq through DKMS.
#
# Stages only the module sources (Kbuild, dkms.conf, kernel/, uapi/) in
# /usr/src/fabriq-VERSION with make install-dkms-src (as the fabriq-dkms
# package does), then runs dkms add/build/install -k KVER.
# "remove" takes the package out of DKMS and /usr/src again.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
action=${1:-}
kver=${2:-$("$src/tools/vm/kver")}
usrc=/usr/src/fabriq-$ver

case "$action" in
install)
	dkms remove -m fabriq -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "$usrc"
	make -s -C "$src" install-dkms-src DESTDIR=
	dkms add -m fabriq -v "$ver"
	dkms build -m fabriq -v "$ver" -k "$kver" || {
		cat "/var/lib/dkms/fabriq/$ver/build/make.log" 2>/dev/null | tail -20 >&2
		exit 1
	}
	dkms install -m fabriq -v "$ver" -k "$kver" --force
	;;
remove)
	dkms remove -m fabriq -v "$ver" --all || true
	rm -rf "$usrc"
	;;
status)
	dkms status -m fabriq
	;;
*)
	echo "usage: tools/dkms.sh {install|remove|status} [KVER]" >&2
	exit 2
	;;
esac
