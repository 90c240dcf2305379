# shellcheck shell=bash
# Host-side helpers for vm/run: host package checks, the download cache of
# stock Debian kernels / static busybox, and KVM module selection.
# Sourced by vm/boot.sh; expects die(), info() and the globals documented there,
# and install_packages() and kvmbench_py() (vm/build-deps.sh, vm/py.sh).

CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/kvm-selftests"

# Debian architecture name for a guest arch.
deb_arch() {
	case "$1" in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	esac
}

# Make sure the host tools needed to boot an $1 guest exist, with the
# emulator's own ($2...: CHECK:PACKAGE, CHECK a command or an absolute
# path).  Installs the missing Debian packages when running as root,
# otherwise tells which ones.
ensure_host_tools() {
	local arch=$1 pkgs=() tool check
	shift
	for tool in "$@" cpio:cpio timeout:coreutils \
		dpkg-deb:dpkg apt-get:apt xz:xz-utils; do
		check=${tool%%:*}
		if [[ $check == /* ]]; then
			[[ -e $check ]] && continue
		else
			command -v "$check" >/dev/null 2>&1 && continue
		fi
		[[ " ${pkgs[*]} " == *" ${tool#*:} "* ]] || pkgs+=("${tool#*:}")
	done
	if [[ $arch == x86_64 && $(uname -m) == x86_64 ]] && ! host_busybox_static; then
		pkgs+=(busybox-static)
	fi
	((${#pkgs[@]})) || return 0
	((EUID == 0)) || die_env "missing host packages; run:" \
		"sudo apt-get install -y --no-install-recommends ${pkgs[*]}"
	info "installing host packages: ${pkgs[*]}"
	install_packages "${pkgs[@]}" || die_env "apt-get install ${pkgs[*]} failed"
}

# True if /bin/busybox is the statically linked one from busybox-static.
host_busybox_static() {
	[[ -x /bin/busybox ]] &&
		dpkg-query -W -f '${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed'
}

# The package cache and the kernels are kvmbench.fetch's (Python); these
# wrappers keep the shell's names.  Its messages take the prefix info()
# prints (vm/run:, vm/kvm-build:); a failure exits as die/die_env would
# (2, 6) from the caller's subshell.
fetch_py() {
	local prog=vm/run
	! declare -F info >/dev/null || prog=$(info '' 2>&1)
	kvmbench_py fetch --prog "${prog%: }" "$@"
}

# ensure_dpkg_arch DEB_ARCH: apt configured to download DEB_ARCH packages.
ensure_dpkg_arch() { fetch_py ensure-dpkg-arch "$1" || exit; }

# fetch_deb PKG DEST: Debian package PKG (name[:arch][=version]) unpacked
# into DEST, once.
fetch_deb() { fetch_py fetch-deb "$1" "$2" >/dev/null || exit; }

# stock_kernel_dir ARCH: the cached stock kernel package's directory.
stock_kernel_dir() { fetch_py stock-kernel-dir "$1" || exit; }

# debian_kernel_dir VERSION ARCH: linux-image-VERSION-<arch>'s directory (a
# series such as 6.12: its newest), fetched once.
debian_kernel_dir() { fetch_py debian-kernel-dir "$1" "$2" || exit; }

# pvh_vmlinux BZIMAGE: its uncompressed vmlinux (QEMU boots it through PVH),
# extracted once beside it; BZIMAGE if it cannot be.
pvh_vmlinux() { fetch_py pvh-vmlinux "$1" || exit; }

# Print the path of a static busybox for guest arch $1.
static_busybox() {
	local arch=$1 darch dir
	darch=$(deb_arch "$arch")
	if [[ $darch == "$(dpkg --print-architecture)" ]] && host_busybox_static; then
		echo /bin/busybox
		return 0
	fi
	ensure_dpkg_arch "$darch"
	dir="$CACHE_DIR/busybox-static-$darch"
	fetch_deb "busybox-static:$darch" "$dir"
	echo "$dir/bin/busybox"
}

# Hex of $3 bytes at offset $2 of file $1.
file_hex() {
	od -An -tx1 -j "$2" -N "$3" "$1" 2>/dev/null | tr -d ' \n'
}

# Module names are normalised with '_' (as in "depends=").
# Print the uncompressed contents of module file $1 on stdout.
mod_cat() {
	case "$1" in
	*.ko.xz) xz -dc "$1" ;;
	*.ko.zst) zstd -dcq "$1" ;;
	*.ko.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# Print the "depends=" list of module file $1, one name per line.
mod_depends() {
	mod_cat "$1" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -n1 | tr ',' '\n' |
		sed '/^$/d; s/-/_/g'
}

declare -A MOD_PATH=()
declare -A MOD_SEEN=()
MOD_ORDER=()

# Index every module under $1, then $2... (theirs replacing those of the
# same name: vm/kvm-build's tree over the kernel's), by normalised name.
mod_index() {
	local f n
	MOD_PATH=()
	while IFS= read -r f; do
		n=${f##*/}
		n=${n%%.ko*}
		MOD_PATH[${n//-/_}]=$f
	done < <(find "$@" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
}

# The release module file $1 was built for (vermagic's first word).
mod_release() {
	mod_cat "$1" | tr '\0' '\n' | sed -n 's/^vermagic=\([^ ]*\).*/\1/p' | head -n1
}

# check_kvm_modules DIR RELEASE: refuse (exit 2) a vm/kvm-build tree DIR
# whose modules (or, arm64, kernel) were built for another release than
# the kernel's RELEASE, before any boot.  Prints DIR's kernel image if it
# has one (arm64: KVM is built in, vm/kvm-build builds the kernel).
check_kvm_modules() {
	local dir=$1 rel=$2 f got n=0
	for f in "$dir"/boot/Image-* "$dir"/boot/vmlinuz-*; do
		[[ -f $f ]] || continue
		got=${f##*/boot/*[ez]-}
		[[ $got == "$rel" ]] || die "--kvm-modules $dir: its kernel is $got, the kernel to boot is $rel"
		echo "$f"
		return 0
	done
	while IFS= read -r f; do
		got=$(mod_release "$f")
		[[ $got == "$rel" ]] ||
			die "--kvm-modules $dir: ${f##*/} is for ${got:-no release}, the kernel to boot is $rel (vm/kvm-build --debian-kernel of that kernel)"
		n=$((n + 1))
	done < <(find "$dir" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
	((n)) || die "--kvm-modules $dir: no modules and no kernel in it (a vm/kvm-build --out DIR)"
}

# Append module $1 and (first) its dependencies to MOD_ORDER.
mod_resolve() {
	local name=$1 dep
	[[ -n ${MOD_SEEN[$name]:-} ]] && return 0
	MOD_SEEN[$name]=1
	[[ -n ${MOD_PATH[$name]:-} ]] || return 1
	while IFS= read -r dep; do
		mod_resolve "$dep" || info "warning: dependency $dep of $name not found"
	done < <(mod_depends "${MOD_PATH[$name]}")
	MOD_ORDER+=("$name")
}

# Copy the KVM modules (+deps) from tree $1 (and $4, whose modules replace
# those of $1: --kvm-modules) into initramfs root $2 as plain
# .ko files, writing load-order lists /etc/vmrun/mods.<flavour>.
# Flavours: x86_64 -> amd (kvm_amd) and intel (kvm_intel); arm64 -> kvm.
# A line is a module name and its parameters (nested=1 for kvm_intel, whose
# default was 0 before 4.20 and may be set off by a distribution).
# Writes no list when the tree has no such module (KVM built in).
install_kvm_modules() {
	local tree=$1 root=$2 arch=$3 flavour top name
	local -a pairs
	mod_index "$tree" ${4:+"$4"}
	mkdir -p "$root/lib/modules" "$root/etc/vmrun"
	if [[ $arch == x86_64 ]]; then
		pairs=(amd:kvm_amd intel:kvm_intel)
	else
		pairs=(kvm:kvm)
	fi
	for flavour in "${pairs[@]}"; do
		top=${flavour#*:}
		MOD_SEEN=()
		MOD_ORDER=()
		mod_resolve "$top" || continue
		for name in "${MOD_ORDER[@]}"; do
			[[ -e $root/lib/modules/$name.ko ]] ||
				mod_cat "${MOD_PATH[$name]}" >"$root/lib/modules/$name.ko"
			if [[ $name == kvm_intel ]]; then
				echo "$name nested=1"
			else
				echo "$name"
			fi
		done >"$root/etc/vmrun/mods.${flavour%%:*}"
	done
}
