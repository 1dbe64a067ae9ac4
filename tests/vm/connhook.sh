# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Sourced by t_connhook.sh and t_connhook_cost.sh: the cgroups they
# share (/ch and 31 levels below it, /np without a policy) and their
# helpers.
cgr=/sys/fs/cgroup
BPFTOOL=$OUT/tools/bpftool
RRPROBE=$OUT/rrprobe
MANYSOCKS=$TOP/bench/manysocks.py
REPS=${REPS:-5}
CONNS=${CONNS:-100}
t_start=$(now_ms)
took() { log "$1 took $(( ($(now_ms) - t_start) / 1000 )) s so far"; }

# /ch, then /ch/l2 ... /ch/l32: depth d is the cgroup d levels down
# from the policy's (depth 1 is /ch itself).
deep=$cgr/ch
for i in $(seq 2 32); do deep=$deep/l$i; done
mkdir -p "$deep" $cgr/np
at_depth() {
	local d=$cgr/ch i
	for i in $(seq 2 "$1"); do d=$d/l$i; done
	echo "$d"
}
d8=$(at_depth 8)

# in_cg DIR CMD...: CMD with its sockets made in DIR. bg_in_cg: the
# same in the background, $! its pid.
in_cg() { (echo $BASHPID >"$1/cgroup.procs" && exec "${@:2}"); }
bg_in_cg() {
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$@" &
}
least() { sort -n | head -1; }
# ratio_se A B: the ratio of the means of files A and B, one number a
# line, and its standard error (first-order, from each file's sample
# variance): "0 0" when either has fewer than two numbers.
ratio_se() {
	awk 'NR == FNR { a[++na] = $1; sa += $1; next } { b[++nb] = $1; sb += $1 }
	END {
		if (na < 2 || nb < 2 || sa <= 0 || sb <= 0) { print 0, 0; exit }
		ma = sa / na; mb = sb / nb
		for (i = 1; i <= na; i++) va += (a[i] - ma) ^ 2
		for (i = 1; i <= nb; i++) vb += (b[i] - mb) ^ 2
		va /= na - 1; vb /= nb - 1
		r = ma / mb
		print r, r * sqrt(va / na / ma ^ 2 + vb / nb / mb ^ 2)
	}' "$1" "$2"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
