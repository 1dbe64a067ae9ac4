#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 12 packages that build tsq, its guest kernel and run its tests.
# Installs only what is missing; apt-get update runs only then.
# usage: install-deps.sh [SET]...  SET adds what one target needs:
#   bench       bench/report.py's plots
#   deb         make deb and its tests: dpkg-buildpackage, debhelper, lintian,
#               python3 (a socket pair for tsqctl top)
#   kernel-deb  make kernel-deb: Debian's kernel configs, bindeb-pkg's tools
#   kernel-boot a Debian kernel package in the VM: its initramfs
set -euo pipefail

pkgs=(
	linux-source-6.12		# the guest kernel source
	build-essential bc bison flex cpio kmod libelf-dev libssl-dev
	dwarves				# pahole, for the kernel's BTF
	rsync				# the selftests' Makefile copies its extras with it
	clang-19 llvm-19		# BPF objects
	libclang-rt-19-dev		# libFuzzer for the parser fuzzers
	zlib1g-dev libcap-dev		# libbpf and bpftool from tools/
	qemu-system-x86			# the test VM
	iproute2 iperf3 iputils-ping ethtool jq bpftrace procps
	man-db groff-base		# man page checks
	python3-ply python3-git		# checkpatch's SPDX check (test_series)
	libcurl4-gnutls-dev libjson-c-dev	# tsq-kube: HTTPS, GnuTLS (not OpenSSL), and JSON
	python3 openssl			# tsq-kube's tests: the stub API server, its CA
	valgrind			# tsq-kube's tests: no uninitialised read on an ERROR event
	python3-kubernetes		# schema check of deploy/kubernetes
	prometheus			# promtool: /metrics as Prometheus parses it
)
for set in "$@"; do
	case $set in
	bench) pkgs+=(python3 python3-matplotlib) ;;
	deb) pkgs+=(dpkg-dev debhelper fakeroot lintian python3) ;;
	kernel-deb) pkgs+=(linux-config-6.12 dpkg-dev debhelper xz-utils) ;;
	kernel-boot) pkgs+=(initramfs-tools zstd) ;;
	*) echo "install-deps: what is \"$set\"?" >&2; exit 1 ;;
	esac
done
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: apt-get install ${missing[*]}" >&2
[ "$(id -u)" = 0 ] || { echo "install-deps: run as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
