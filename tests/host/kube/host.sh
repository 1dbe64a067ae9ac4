# SPDX-License-Identifier: GPL-2.0
# What tsq-kube's host tests share (tests/host/test_kube.sh,
# test_kube_hostile.sh), sourced once $top is set; the VM's t_kube.sh has
# its own (tests/vm/lib.sh).
#
#   kube_host_init NAME [TOOL...]  sets kube (the agent), here (this
#       directory), py and t (a new temporary directory), or exits with
#       a skip line when the agent, openssl, python3 or a TOOL is missing
#   pass NAME, fail NAME: WHY       result lines for tests/ktap.sh
#   now_ms                          the clock, in ms
kube_host_init() {
	local c
	kube=${OUTPUT:-$top/.output}/tsq-kube
	here=$top/tests/host/kube
	py=/usr/bin/python3
	[ -x "$kube" ] || { echo "# SKIP: $1: no $kube (make all)"; exit 0; }
	for c in openssl "$py" "${@:2}"; do
		command -v "$c" >/dev/null || { echo "# SKIP: $1: no $c"; exit 0; }
	done
	t=$(mktemp -d)
}

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
