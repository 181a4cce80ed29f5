# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tools/fresh-root.sh - sourced by bash: make, enter and take down a fresh
# Debian 12 root, as a fresh install has it (debootstrap --variant=minbase
# bookworm; apt sources bookworm, bookworm-updates and bookworm-security on
# the mirrors this machine's apt already uses).  .ci/run makes the root CI
# runs `make check` in; tools/deb/test makes one to install the packages in.
#
#   fresh_root_apt_uris SUITE  the URI this machine's apt uses for SUITE's main
#   fresh_root_create ROOT LOG debootstrap into ROOT (output to LOG), the apt
#                              sources, how this machine reaches its mirrors,
#                              resolv.conf, and fresh_root_mount; on failure
#                              a reason on stderr and status 1
#   fresh_root_mount ROOT      /proc, /sys, /dev and /dev/pts bound below ROOT
#                              as slaves
#   fresh_root_unmount ROOT    unmount all below ROOT, deepest first; status 1
#                              if anything stays mounted
#   fresh_root_remove ROOT     unmount, then remove ROOT without crossing
#                              into a file system still mounted there
#   fresh_root_run ROOT CMD... CMD in ROOT with a clean environment (but the
#                              proxies this machine reaches its mirrors by)

fresh_root_apt_uris() {
	{
		# deb822 stanzas: Types deb, SUITE among Suites, main among Components
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] && { cat "$f"; echo; }
		done | awk -v s="$1" '
			function judge() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") &&
				    (" " comps " ") ~ / main / && enabled !~ /^no/)
					{ split(uris, u, " "); print u[1] }
				types = suites = comps = uris = enabled = ""
			}
			/^Types:/ { types = $0; sub(/^Types: */, "", types) }
			/^URIs:/ { uris = $0; sub(/^URIs: */, "", uris) }
			/^Suites:/ { suites = $0; sub(/^Suites: */, "", suites) }
			/^Components:/ { comps = $0; sub(/^Components: */, "", comps) }
			/^Enabled:/ { enabled = $2 }
			/^[[:space:]]*$/ { judge() }
			END { judge() }'
		# one-line sources: deb [opts] URI SUITE COMPONENTS..., with main
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk -v s="$1" '$1 == "deb" { for (i = 2; i < NF; i++)
				if ($i ~ /^[a-z]+:\/\// && $(i + 1) == s) {
					for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; break }
					break } }'
	} | grep -m1 .
}

fresh_root_mounts() {	# the mount points below ROOT, deepest first
	findmnt -rn -o TARGET | awk -v r="$1/" 'index($0, r) == 1' | sort -r
}

fresh_root_unmount() {
	local m
	for m in $(fresh_root_mounts "$1"); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	[ -z "$(fresh_root_mounts "$1")" ]
}

fresh_root_remove() {
	case $1 in *" "*) echo "fresh-root: the path '$1' has a space; findmnt would not match it" >&2
		return 1 ;; esac
	fresh_root_unmount "$1" || { echo "fresh-root: cannot unmount what is below $1" >&2; return 1; }
	rm -rf --one-file-system "$1" || { echo "fresh-root: cannot remove $1" >&2; return 1; }
}

fresh_root_create() {
	local root=$1 log=$2 mirror security m
	mirror=$(fresh_root_apt_uris bookworm)
	security=$(fresh_root_apt_uris bookworm-security)
	if [ -z "$mirror" ] || [ -z "$security" ]; then
		echo "fresh-root: this machine's apt has no bookworm and bookworm-security sources" >&2
		return 1
	fi
	fresh_root_remove "$root" || return 1
	debootstrap --variant=minbase --components=main bookworm "$root" "$mirror" >> "$log" 2>&1 ||
		{ echo "fresh-root: debootstrap failed (see $log)" >&2; return 1; }
	rm -f "$root/etc/apt/sources.list"
	cat > "$root/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
	# How this machine reaches its mirrors (proxy, date checks), nothing else.
	apt-config dump | grep -iE '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date) ' \
		> "$root/etc/apt/apt.conf.d/99ci-outer-machine"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	fresh_root_mount "$root"
}

fresh_root_mount() {
	local m
	# Slaves: what happens below the root never propagates back to the host.
	for m in proc sys dev dev/pts; do
		{ mount --bind "/$m" "$1/$m" && mount --make-rslave "$1/$m"; } ||
			{ echo "fresh-root: cannot bind-mount /$m" >&2; return 1; }
	done
}

fresh_root_run() {
	local root=$1 v proxies=()
	shift
	for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
		[ -n "${!v:-}" ] && proxies+=("$v=${!v}")
	done
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI="${CI:-}" \
		DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"${proxies[@]}" "$@"
}
