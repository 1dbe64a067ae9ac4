#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 12 packages that build tsq, its guest kernel and run its tests.
# Installs only what is missing; apt-get update runs only then.
# usage: install-deps.sh [bench]   (bench adds what bench/report.py plots with)
set -euo pipefail

pkgs=(
	linux-source-6.12		# the guest kernel source
	build-essential bc bison flex cpio kmod libelf-dev libssl-dev
	dwarves				# pahole, for the kernel's BTF
	clang-19 llvm-19		# BPF objects
	libclang-rt-19-dev		# libFuzzer for the parser fuzzers
	zlib1g-dev libcap-dev		# libbpf and bpftool from tools/
	qemu-system-x86			# the test VM
	iproute2 iperf3 iputils-ping ethtool jq bpftrace procps
	man-db groff-base		# man page checks
	prometheus			# promtool: /metrics as Prometheus parses it
	python3				# strict JSON decoding of every -j output
)
[ "${1:-}" != bench ] || pkgs+=(python3-matplotlib)
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
