#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The build links what scripts/build-tools.sh left: a fresh machine once
# failed at the first link because libbpf's Makefile installed to lib64
# while a warm cache still held lib/. Check the paths the Makefile uses,
# and that the tools cache key moves with everything that decides them.
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"
mkvar() { make -s --no-print-directory -C "$top" "print-$1"; }

libbpf=$(mkvar LIBBPF_A)
bpftool=$(mkvar BPFTOOL)
case $libbpf in /*) ;; *) libbpf=$top/$libbpf ;; esac
case $bpftool in /*) ;; *) bpftool=$top/$bpftool ;; esac

if [ -s "$libbpf" ]; then
	pass "LIBBPF_A exists: $(mkvar LIBBPF_A)"
else
	fail "LIBBPF_A=$(mkvar LIBBPF_A) does not exist: see scripts/build-tools.sh"
fi
# .struct_ops.link needs libbpf >= 1.3: bpf_link__update_map is its API.
if nm "$libbpf" 2>/dev/null | grep -q ' T bpf_link__update_map$'; then
	pass "libbpf.a has bpf_link__update_map (libbpf >= 1.3)"
else
	fail "$libbpf lacks bpf_link__update_map: not libbpf 1.5"
fi
v=$("$bpftool" version 2>/dev/null | sed -n 's/.*v\([0-9]*\.[0-9]*\).*/\1/p' | head -1)
if [ -n "$v" ] && [ "$(printf '%s\n7.5\n' "$v" | sort -V | head -1)" = 7.5 ]; then
	pass "bpftool $v >= 7.5"
else
	fail "bpftool at $bpftool reports version '${v:-none}'"
fi

# The cache key: the same inputs give the same key; a changed script or
# a changed make variable gives another.
script=$top/scripts/build-tools.sh
k0=$("$script" --key)
cp "$script" "$tmp/a.sh"
k1=$("$tmp/a.sh" --key)
sed 's|libdir=/lib)|libdir=/lib64)|' "$script" >"$tmp/b.sh"
printf '# a comment\n' | cat "$script" - >"$tmp/c.sh"
chmod +x "$tmp"/*.sh
k2=$("$tmp/b.sh" --key)
k3=$("$tmp/c.sh" --key)
if [ -n "$k0" ] && [ "$k0" = "$k1" ]; then
	pass "tools key is stable ($k0)"
else
	fail "tools key changes with nothing changed: '$k0' '$k1'"
fi
if ! cmp -s "$script" "$tmp/b.sh" && [ "$k2" != "$k0" ]; then
	pass "tools key covers the libbpf make variables"
else
	fail "tools key ignores a change of libdir"
fi
if [ "$k3" != "$k0" ]; then
	pass "tools key covers build-tools.sh itself"
else
	fail "tools key ignores a change to build-tools.sh"
fi

# Build structure (issue 15): all is the product only, tests the rest;
# each source compiled once, into $(OUTPUT)/obj with its .d file (and
# once more under the sanitizers, into $(OUTPUT)/san/obj).
# (make -n -B: the commands a full build would run, none of them run.)
o=$(mkvar OUTPUT)
plan_all=$(make -n -B -C "$top" all 2>/dev/null)
plan=$(make -n -B -C "$top" all tests 2>/dev/null)
if grep -q -- "-o $o/tsqctl\$" <<<"$plan_all" && grep -q -- "-o $o/tsqd\$" <<<"$plan_all" &&
   ! grep -qE -- "-o $o/(hook_test|test_progs|scale_maps|stallwatch|tests/)" <<<"$plan_all"; then
	pass "make all builds tsqd and tsqctl and no test program"
else
	fail "make all: $(grep -oE -- "-o $o/[^ ]*" <<<"$plan_all" | tr '\n' ' ')"
fi
if grep -qE -- "-o $o/(hook_test|test_progs|scale_maps)\$" <<<"$plan" &&
   grep -q -- "-o $o/tests/test_json_writer\$" <<<"$plan"; then
	pass "make tests builds the test programs and unit tests"
else
	fail "make tests misses a test program"
fi
srcs=$(grep -v -- "-fsanitize=" <<<"$plan" | grep -oE -- ' -c [^ ]+\.c' | sort)
dups=$(uniq -d <<<"$srcs")
if [ -n "$srcs" ] && [ -z "$dups" ]; then
	pass "each of $(wc -l <<<"$srcs") sources compiled once"
else
	fail "compiled more than once: $dups"
fi
if grep -q -- '-MMD' <<<"$plan" && [ -z "$(grep -E -- ' -c [^ ]+\.c' <<<"$plan" |
	grep -vE -- "-MMD|-o $o/obj/|\\.bpf\\.o\$")" ]; then
	pass "user-space objects in .output/obj with -MMD dependencies"
else
	fail "an object outside .output/obj or without -MMD"
fi

# tsq-kube links libcurl's GnuTLS flavour, whose TLS is GnuTLS: OpenSSL
# 3's Apache-2.0 licence does not go with GPL-2.0. (Debian 12's libssh2,
# which both flavours load, still brings libcrypto.so.3, for SSH only.)
kube=$o/tsq-kube
case $kube in /*) ;; *) kube=$top/$kube ;; esac
if [ -x "$kube" ]; then
	needed=$(readelf -d "$kube" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	libs=$(ldd "$kube")
	ssl=$(grep -oE 'lib(curl|ssl)\.so[^ ]*' <<<"$libs" | sort -u | tr '\n' ' ')
	if grep -qw 'libcurl-gnutls\.so\.4' <<<"$needed" && grep -q 'libgnutls\.so' <<<"$libs" &&
	   [ -z "$ssl" ]; then
		pass "tsq-kube needs libcurl-gnutls.so.4, loads libgnutls, no libcurl.so.4 or libssl"
	else
		fail "tsq-kube: NEEDED $needed; OpenSSL flavour: $ssl"
	fi
else
	echo "# SKIP: tsq-kube's libraries: no $kube (make all)"
fi

# User space without a kernel build (issue 24): the BPF objects build
# from the vmlinux.h kept in the tree, and nothing in a plain make, first
# or second, asks for the kernel. Before, -I$(OUTPUT) put .output/vmlinux.h
# in the .d files and its rule ran build-kernel.sh on every later make.
fresh=$(mktemp -d)
trap 'rm -rf "$tmp" "$fresh"' EXIT
vh=$(mkvar VMLINUX_H)
if make -n -C "$top" OUTPUT="$fresh" all tests 2>/dev/null | grep -q build-kernel.sh; then
	fail "make all tests on a fresh output would build the kernel"
else
	pass "make all tests on a fresh output builds no kernel"
fi
# One BPF object for real into the fresh output, then what a second
# make would do there.
if make -s -C "$top" OUTPUT="$fresh" "$fresh/tsq_observe.bpf.o" >"$fresh/log" 2>&1; then
	names=$(grep -o '[^ ]*vmlinux[^ ]*\.h' "$fresh/tsq_observe.bpf.d" | sort -u | tr '\n' ' ')
	if [ "$names" = "$vh " ]; then
		pass "tsq_observe.bpf.d names only $vh"
	else
		fail "tsq_observe.bpf.d names: $names"
	fi
	if make -n -C "$top" OUTPUT="$fresh" all tests 2>/dev/null | grep -q build-kernel.sh; then
		fail "a second make all tests would build the kernel"
	else
		pass "a second make all tests builds no kernel"
	fi
else
	fail "tsq_observe.bpf.o from $vh: $(tail -3 "$fresh/log")"
fi
# VMLINUX_H= another header: that one is compiled against, no other.
mkdir "$fresh/h"
cp "$top/$vh" "$fresh/h/vmlinux.h"
rm -f "$fresh/tsq_observe.bpf.o"
if make -s -C "$top" OUTPUT="$fresh" VMLINUX_H="$fresh/h/vmlinux.h" \
	"$fresh/tsq_observe.bpf.o" >"$fresh/log" 2>&1 &&
   grep -q "$fresh/h/vmlinux.h" "$fresh/tsq_observe.bpf.d" &&
   ! grep -q "$vh" "$fresh/tsq_observe.bpf.d"; then
	pass "VMLINUX_H=$fresh/h/vmlinux.h is the header the BPF objects include"
else
	fail "VMLINUX_H= override not used: $(tail -3 "$fresh/log")"
fi

# Which kernels each target builds (make -n): check both, 6.12 first and
# whatever KVER says; demo and bench 6.12 only; kernel and check-vm the
# KVER asked for.
# kvers TARGET [VAR=VALUE...]: the KVER of each build-kernel.sh run.
kvers() {
	make -n -C "$top" "$@" 2>/dev/null | sed -n 's/^KVER=\([^ ]*\) .*build-kernel\.sh.*/\1/p' |
		tr '\n' ' ' | sed 's/ $//'
}
for t in "check|6.12 7.3" "check KVER=7.3|6.12 7.3" "demo KVER=7.3|6.12" \
	 "bench KVER=7.3|6.12" "kernel|6.12" "kernel KVER=7.3|7.3" \
	 "check-vm KVER=7.3|7.3" "check-vm|6.12"; do
	args=${t%%|*} want=${t#*|}
	# shellcheck disable=SC2086
	got=$(kvers $args)
	if [ "$got" = "$want" ]; then
		pass "make $args builds the kernels of KVER $want"
	else
		fail "make $args builds the kernels of KVER '$got', not '$want'"
	fi
done
