#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deps.sh - install what fabriq's build, tests, demo and bench need
# (the packages of tools/deps.list), with apt-get, only when something is
# missing; then check with tools/preflight that every program is there.
# Debian 12 (bookworm), as root.
#
# Guest kernels: bookworm's 6.1 (linux-image-amd64) and 6.12
# (linux-image-6.12-amd64), each with its headers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(awk '!/^#/ && NF >= 2 && !seen[$2]++ { print $2 }' "$here/deps.list")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "fabriq: missing packages: ${missing[*]}; run as root or: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	echo "fabriq: installing ${missing[*]}" >&2
	t0=$(date +%s)
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
	echo "# deps: ${#missing[@]} packages installed in $(( $(date +%s) - t0 )) s"
fi
exec "$here/preflight"
