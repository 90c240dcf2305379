# shellcheck shell=bash
# Host-side helpers for vm/run: host package checks, the download cache of
# stock Debian kernels / static busybox, and KVM module selection.
# Sourced by vm/boot.sh; expects die(), info() and the globals documented there,
# and install_packages() (vm/build-deps.sh).

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

# apt needs the foreign architecture configured to download arm64 packages.
ensure_dpkg_arch() {
	local darch=$1
	[[ $darch == "$(dpkg --print-architecture)" ]] && return 0
	dpkg --print-foreign-architectures | grep -qx "$darch" && return 0
	if ((EUID != 0)); then
		die_env "dpkg architecture $darch not configured; run: sudo dpkg --add-architecture $darch && sudo apt-get update"
	fi
	info "adding dpkg architecture $darch"
	dpkg --add-architecture "$darch"
	apt-get update -qq >&2 || die_env "apt-get update failed"
}

# Download Debian package $1 (name[:arch]) and unpack it into $2, once.
# A ".complete" stamp marks a finished unpack, so interrupted runs retry.
fetch_deb() {
	local pkg=$1 dest=$2 tmp out
	[[ -e $dest/.complete ]] && return 0
	mkdir -p "$CACHE_DIR"
	tmp=$(mktemp -d "$CACHE_DIR/.dl.XXXXXX")
	chmod 755 "$tmp" # let apt's _apt sandbox user write here
	info "downloading $pkg into $dest (once)"
	if ! out=$(cd "$tmp" && apt-get download -qq "$pkg" 2>&1); then
		rm -rf "$tmp"
		printf '%s\n' "$out" >&2
		die_env "apt-get download $pkg failed"
	fi
	rm -rf "$dest"
	mkdir -p "$dest"
	dpkg-deb -x "$tmp"/*.deb "$dest" || { rm -rf "$tmp" "$dest"; die_env "dpkg-deb -x failed for $pkg"; }
	rm -rf "$tmp"
	touch "$dest/.complete"
}

# Print the directory of the cached stock kernel for guest arch $1,
# downloading it if no cached one exists yet.
stock_kernel_dir() {
	local arch=$1 darch meta pkg dir
	darch=$(deb_arch "$arch")
	# Reuse any complete cached kernel (newest first): no network needed.
	dir=$(find "$CACHE_DIR" -maxdepth 2 -name .complete -path "*/linux-image-6.1.0-*-$darch/*" \
		2>/dev/null | sort -V | tail -n1)
	if [[ -n $dir ]]; then
		dirname "$dir"
		return 0
	fi
	ensure_dpkg_arch "$darch"
	meta="linux-image-$darch"
	[[ $darch == "$(dpkg --print-architecture)" ]] || meta+=":$darch"
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n1)
	[[ -n $pkg ]] || die_env "cannot resolve $meta with apt-cache (not Debian? use --kernel)"
	fetch_deb "$pkg:$darch" "$CACHE_DIR/$pkg"
	echo "$CACHE_DIR/$pkg"
}

# Kernel versions of Debian arch $1 that apt knows or the cache holds: the
# VERSION of each linux-image-VERSION-ARCH package (6.1.0-57,
# 6.12.117+deb12; no cloud/rt flavours, no metapackages), oldest first.
debian_kernel_versions() {
	local darch=$1
	{
		apt-cache pkgnames linux-image- 2>/dev/null
		find "$CACHE_DIR" -mindepth 2 -maxdepth 2 -name .complete \
			-path '*/linux-image-*' -printf '%h\n' 2>/dev/null | sed 's|.*/||'
	} | sed -nE "s/^linux-image-([0-9]+\.[0-9]+\.[0-9]+(-[0-9]+|\+deb[0-9]+))-$darch\$/\1/p" |
		sort -uV
}

# Print the Debian kernel version for $1 (a series "6.12": its newest; a
# full version "6.12.115+deb12" or "6.1.0-57": exactly that) on Debian arch
# $2, or fail with the versions that exist.
resolve_debian_kernel() {
	local want=$1 darch=$2 all pick
	all=$(debian_kernel_versions "$darch")
	if [[ -z $all && $EUID == 0 ]]; then
		apt-get update -qq >&2 || true
		all=$(debian_kernel_versions "$darch")
	fi
	if [[ $want =~ ^[0-9]+\.[0-9]+$ ]]; then
		pick=$({ grep "^${want//./\\.}\." <<<"$all" || true; } | tail -n1)
	else
		pick=$(grep -xF "$want" <<<"$all" || true)
	fi
	if [[ -z $pick ]]; then
		all=$(tr '\n' ' ' <<<"$all")
		all=${all% }
		die "no Debian kernel '$want' for $darch; there are: ${all:-none (apt-get update?)}"
	fi
	echo "$pick"
}

# Print the directory of Debian kernel package linux-image-$1-<arch> for
# guest arch $2 (version as resolve_debian_kernel takes it), fetched once.
debian_kernel_dir() {
	local want=$1 darch ver pkg
	darch=$(deb_arch "$2")
	ensure_dpkg_arch "$darch"
	ver=$(resolve_debian_kernel "$want" "$darch") || exit
	pkg=linux-image-$ver-$darch
	fetch_deb "$pkg:$darch" "$CACHE_DIR/$pkg"
	echo "$CACHE_DIR/$pkg"
}

# x86: a bzImage spends seconds decompressing itself under TCG.  Print the
# path of the uncompressed ELF vmlinux of bzImage $1 (QEMU boots it through
# the PVH entry point), extracting it once next to $1; print $1 on failure.
pvh_vmlinux() {
	local bz=$1 out off
	out="$(dirname "$bz")/vmlinux-pvh"
	if [[ ! -s $out ]]; then
		grep -q '^CONFIG_PVH=y' "$(dirname "$bz")"/config-* 2>/dev/null || { echo "$bz"; return 0; }
		off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -n1 | cut -d: -f1)
		[[ -n $off ]] || { echo "$bz"; return 0; }
		tail -c +$((off + 1)) "$bz" | xz -dcq >"$out.tmp" 2>/dev/null || true
		if [[ $(head -c4 "$out.tmp" | od -An -c | tr -d ' ') == 177ELF ]]; then
			mv "$out.tmp" "$out"
		else
			rm -f "$out.tmp"
			echo "$bz"
			return 0
		fi
	fi
	echo "$out"
}

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

# True if $2 looks like a kernel QEMU can boot for guest arch $1:
# ELF (vmlinux), x86 bzImage ("HdrS" at 0x202), arm64 Image ("ARMd" at
# 0x38), gzip, or an EFI zboot image ("MZ" ... "zimg").
is_kernel_image() {
	local arch=$1 f=$2
	[[ $(file_hex "$f" 0 4) == 7f454c46 ]] && return 0
	if [[ $arch == x86_64 ]]; then
		[[ $(file_hex "$f" 514 4) == 48647253 ]]
	else
		[[ $(file_hex "$f" 56 4) == 41524d64 || $(file_hex "$f" 0 2) == 1f8b ||
			$(file_hex "$f" 0 8) == 4d5a00007a696d67 ]]
	fi
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
