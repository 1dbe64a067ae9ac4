#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernel-deb's configuration, without the build: kernel/config-tsq
# merged onto Debian's own config (linux-config-6.12, cloud-amd64, the
# default flavour) and onto the test VM's, then olddefconfig; every
# option the fragment lists comes out as listed. A fragment that the
# config's dependencies defeat fails the merge.
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
script=$top/scripts/build-kernel-deb.sh
frag=$top/kernel/config-tsq
out=${OUTPUT:-$top/.output}

# merged NAME KCONFIG: the merge, its result in $tmp/NAME.config; the
# fragment's lines that are not in it, on stdout. One object directory
# for all: kconfig is built once.
merged() {
	KCONFIG=$2 KFRAGMENTS= "$script" --config-only "$tmp/k" >"$tmp/$1.log" 2>&1 ||
		{ echo "(merge failed: $(tail -2 "$tmp/$1.log" | tr '\n' ' '))"; return; }
	cp "$tmp/k/obj/.config" "$tmp/$1.config"
	grep '^CONFIG_' "$frag" | while read -r line; do
		grep -qx "$line" "$tmp/$1.config" || echo "$line"
	done
}

n=$(grep -c '^CONFIG_' "$frag")
for flavour in cloud-amd64; do
	cfg=/usr/src/linux-config-6.12/config.amd64_none_$flavour.xz
	if [ ! -r "$cfg" ]; then
		fail "$cfg missing (scripts/install-deps.sh kernel-deb)"
		continue
	fi
	t0=$(date +%s%N)
	miss=$(merged "$flavour" "$cfg")
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	if [ -z "$miss" ]; then
		pass "Debian's $flavour config + config-tsq: all $n options as listed ($ms ms)"
	else
		fail "Debian's $flavour config + config-tsq: not as listed: $(tr '\n' ' ' <<<"$miss")"
	fi
done
if [ -s "$out/kernel/.config" ]; then
	miss=$(merged vm "$out/kernel/.config")
	if [ -z "$miss" ]; then
		pass "the VM's config + config-tsq: all $n options as listed"
	else
		fail "the VM's config + config-tsq: not as listed: $(tr '\n' ' ' <<<"$miss")"
	fi
	# BTF depends on !DEBUG_INFO_REDUCED: asking for both must fail.
	printf 'CONFIG_DEBUG_INFO_REDUCED=y\n' >"$tmp/bad"
	if KCONFIG=$out/kernel/.config KFRAGMENTS=$tmp/bad "$script" --config-only \
		"$tmp/k" >"$tmp/bad.log" 2>&1; then
		fail "a fragment that drops DEBUG_INFO_BTF merged without an error"
	elif grep -q 'CONFIG_DEBUG_INFO_BTF=y did not survive' "$tmp/bad.log"; then
		pass "a fragment that drops DEBUG_INFO_BTF fails: $(grep -m1 'did not survive' "$tmp/bad.log")"
	else
		fail "a bad fragment failed otherwise: $(tail -2 "$tmp/bad.log" | tr '\n' ' ')"
	fi
else
	echo "# SKIP: the VM's config + config-tsq: no $out/kernel/.config (make kernel)"
fi
