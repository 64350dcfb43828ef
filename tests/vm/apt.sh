# apt.sh - a private apt setup for one Debian suite and architecture, so
# that Debian's packages can be downloaded by name without touching the
# host's apt configuration (sources, lists, cache, preferences, conf.d are
# all our own). Sourced by fetch.sh.
#
#   apt_setup SUITE ARCH   sets apt_opts (for apt-get/apt-cache) and
#                          refreshes the suite's lists when older than
#                          GOHEAP_VM_LIST_HOURS (24); an old list is kept
#                          (with a warning) when the archive cannot be
#                          reached
#   apt_fetch PKG...       the .debs of PKG in $debs (the cache), each
#                          downloaded only when missing or its checksum
#                          differs; prints their paths
#
# Everything lives under $cache (GOHEAP_VM_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/goheap-bpf/vm): apt/SUITE-ARCH/ and debs/.

cache=${GOHEAP_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goheap-bpf/vm}
debs=$cache/debs

apt_setup() {
	local suite=$1 arch=$2 d stamp age
	d=$cache/apt/$suite-$arch
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty" "$debs" ||
		{ echo "vm: cannot make $d: set GOHEAP_VM_CACHE to a writable directory" >&2; return 1; }
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
		>"$d/sources.list"
	: >"$d/status"
	apt_opts=(-q -o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/empty"
		-o "Dir::Etc::parts=$d/empty" -o "Dir::Etc::preferences=$d/empty/none"
		-o "Dir::Etc::preferencesparts=$d/empty" -o "Dir::State::Lists=$d/lists"
		-o "Dir::State::status=$d/status" -o "Dir::Cache=$d/cache"
		-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"
		-o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
	stamp=$d/lists/.updated
	age=$((${GOHEAP_VM_LIST_HOURS:-24} * 3600))
	if [ -e "$stamp" ] && [ $(($(date +%s) - $(stat -c %Y "$stamp"))) -lt "$age" ]; then
		return 0
	fi
	if apt-get "${apt_opts[@]}" update >"$d/update.log" 2>&1 &&
		! grep -qE '^(W|E): ' "$d/update.log"; then
		touch "$stamp"
	elif [ -e "$stamp" ]; then
		echo "vm: warning: cannot refresh Debian $suite ($arch) lists, using those of $(date -r "$stamp" +%F): $(grep -E '^(W|E): ' "$d/update.log" | head -1)" >&2
	else
		echo "vm: cannot read Debian $suite ($arch) from deb.debian.org: $(grep -E '^(W|E): ' "$d/update.log" | head -1) (see $d/update.log; network or proxy needed once)" >&2
		return 1
	fi
}

# apt_depends PKG REGEX: the packages PKG depends on whose names match REGEX.
apt_depends() {
	apt-cache "${apt_opts[@]}" depends "$1" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}\(Pre\)\{0,1\}Depends: \([^ <>]*\)$/\2/p' | grep -E "$2" || true
}

# apt_version FILE: the version in a .deb's file name (%3a is an epoch's ':').
apt_version() {
	local v=${1#*_}
	v=${v%_*}
	printf '%s' "$v" | sed 's/%3a/:/g; s/%2b/+/g; s/%7e/~/g'
}

apt_fetch() {
	local uri file size sum p
	apt-get "${apt_opts[@]}" download --print-uris "$@" >"$debs/.uris.$$" 2>"$debs/.uris.err.$$" || {
		echo "vm: apt-get cannot find $*: $(head -1 "$debs/.uris.err.$$")" >&2
		rm -f "$debs/.uris.$$" "$debs/.uris.err.$$"
		return 1
	}
	rm -f "$debs/.uris.err.$$"
	while read -r uri file size sum; do
		p=$debs/$file
		if ! [ -s "$p" ] || [ "$(sha256sum <"$p" | cut -d' ' -f1)" != "${sum#SHA256:}" ]; then
			echo "vm: downloading $file ($((size >> 20)) MiB)" >&2
			rm -f "$p"
			(cd "$debs" && apt-get "${apt_opts[@]}" download "${file%%_*}=$(apt_version "$file")") \
				>"$debs/.dl.$$" 2>&1 && [ -s "$p" ] ||
				{ echo "vm: apt-get download of $file failed: $(grep -E '^(W|E): ' "$debs/.dl.$$" | head -1) (network?)" >&2
				  rm -f "$debs/.dl.$$" "$debs/.uris.$$"; return 1; }
			rm -f "$debs/.dl.$$"
		fi
		echo "$p"
	done <"$debs/.uris.$$"
	rm -f "$debs/.uris.$$"
}
