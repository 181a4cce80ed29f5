#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deps.sh - install what fabriq's build, tests and demo need, with
# apt-get, only when something is missing.  Debian 12 (bookworm), as root.
#
# Guest kernels: bookworm's 6.1 (linux-image-amd64) and 6.12
# (linux-image-6.12-amd64), each with its headers.
set -eu
pkgs=(
	make gcc libc6-dev pkg-config libnl-3-dev libnl-genl-3-dev
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-source-6.1
	qemu-system-x86 busybox-static cpio xz-utils kmod iproute2 jq dkms sparse
	tcpdump iputils-ping perftest ibverbs-providers bc
	ethtool procps
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
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
