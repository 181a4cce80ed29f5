#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deps.sh [PACKAGE...] - install what fabriq's build, tests, demo and
# bench need (the packages of tools/deps.list), and the packages named (what
# one target alone needs: make check-debug's linux-source-6.12), with
# apt-get, only when something is missing; then check with tools/preflight
# that every program is there.  Debian 12 (bookworm), as root.
#
# Guest kernels: bookworm's 6.1 (linux-image-amd64) and 6.12
# (linux-image-6.12-amd64), each with its headers.
#
# qemu comes from bookworm-backports (10.0): bookworm's 7.2 computes EFLAGS
# wrongly after cmpxchg16b under TCG, and its guests crash under rxe load
# (tools/vm/cpu-flags.c).  The suite is added beside the system's bookworm
# source, on the same mirror, as /etc/apt/sources.list.d/
# fabriq-bookworm-backports.sources; apt pins backports at 100, so nothing
# else is taken from it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
backport=qemu-system-x86 backport_min=1:8.0
mapfile -t pkgs < <(awk '!/^#/ && NF >= 2 && !seen[$2]++ { print $2 }' "$here/deps.list")
pkgs+=("$@")
missing=()
for p in "${pkgs[@]}"; do
	[ "$p" = "$backport" ] && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
have=$(dpkg-query -W -f='${Status} ${Version}' "$backport" 2>/dev/null |
	sed -n 's/^install ok installed //p')
backport_missing=0
dpkg --compare-versions "${have:-0}" ge "$backport_min" || backport_missing=1

if [ ${#missing[@]} -gt 0 ] || [ $backport_missing -eq 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		[ $backport_missing -eq 1 ] && missing+=("$backport/bookworm-backports (>= $backport_min)")
		echo "fabriq: missing packages: ${missing[*]}; run tools/deps.sh as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	t0=$(date +%s)
	n=${#missing[@]}
	apt-get update -q
	if [ $n -gt 0 ]; then
		echo "fabriq: installing ${missing[*]}" >&2
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
	if [ $backport_missing -eq 1 ]; then
		# the mirror of the system's bookworm main ("500 URI bookworm/main ...")
		if ! apt-cache policy | grep -q ' bookworm-backports/main '; then
			mirror=$(apt-cache policy | awk '$3 == "bookworm/main" && $2 ~ /^https?:/ { print $2; exit }')
			[ -n "$mirror" ] || { echo "fabriq: apt has no bookworm main source to add bookworm-backports beside" >&2; exit 1; }
			cat > /etc/apt/sources.list.d/fabriq-bookworm-backports.sources <<SOURCES
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
			apt-get update -q
		fi
		echo "fabriq: installing $backport from bookworm-backports (${have:+$have is }older than $backport_min)" >&2
		apt-get install -y -q --no-install-recommends -t bookworm-backports "$backport"
		n=$((n + 1))
	fi
	echo "# deps: $n packages installed in $(( $(date +%s) - t0 )) s"
fi
exec "$here/preflight"
