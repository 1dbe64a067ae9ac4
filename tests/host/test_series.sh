#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel series are upstream-shaped. For each of kernel/7.3 (the
# series' base) and kernel/6.12 (the backport) whose source
# scripts/build-kernel.sh has unpacked ($TSQ_CACHE/src/pristine-KVER):
# git am applies it to the pristine files, checkpatch.pl --strict run
# inside the full pristine tree has nothing to say about it, the
# subjects carry the version's tag, the cover letter names its base,
# the test setup and numbers, every author and sign-off is the marked
# placeholder, and the kernel code it adds stays under its bound.
# kernel/bpf-next, never built here, is checked for its form only.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${TSQ_CACHE:-/var/cache/tsq}
placeholder='AUTHOR PLACEHOLDER <replace-before-posting@invalid>'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The subject tag of each series: v4 on 7.3; the backport as the stable
# trees tag theirs, with the version of the tree it is for.
declare -A tag=([7.3]="PATCH RFC v4" [6.12]="PATCH RFC v4 6.12")
# The cover letter's base line: the release and the Debian package the
# series was made on (build-kernel.sh reads the package and version from
# it to tell a rebase from a broken series).
declare -A base_re=(
	[7.3]='^base: Linux 7\.[0-9]+[^ ]* \(Debian linux-source-7\.[0-9]+ [^ )]+\)'
	[6.12]='^base: Debian 6\.12')
declare -A base_eg=(
	[7.3]='base: Linux 7.3-rc7 (Debian linux-source-7.3 7.3~rc7-1~exp1)'
	[6.12]='base: Debian 6.12.118 (linux-source-6.12)')

# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") may be ignored for
# a patch only when every file it adds is listed here, with the F: glob of
# the tree's MAINTAINERS that already covers it and why that section is
# the right one. The test checks that the glob is in MAINTAINERS and
# covers the file.
justified=(
	"net/ipv4/tcp_tsq.c|net/ipv4/tcp*.c|NETWORKING [TCP]: TSQ is TCP's, its code is tcp_output.c's"
	"net/ipv4/tcp_tsq_ops.c|net/ipv4/tcp*.c|NETWORKING [TCP]: the established hook of 7.3 and 6.12, the bridge a bpf-next posting drops"
	"tools/testing/selftests/bpf/prog_tests/tcp_tsq.c|tools/testing/selftests/bpf/|BPF [GENERAL]: a test_progs test"
	"tools/testing/selftests/bpf/progs/tcp_tsq.c|tools/testing/selftests/bpf/|BPF [GENERAL]: its BPF programs"
	"tools/testing/selftests/bpf/progs/tcp_tsq_kfunc.c|tools/testing/selftests/bpf/|BPF [GENERAL]: its BPF programs"
	"tools/testing/selftests/bpf/progs/tcp_tsq_kfunc.h|tools/testing/selftests/bpf/|BPF [GENERAL]: its BPF programs"
	"tools/testing/selftests/bpf/progs/tcp_tsq_kfunc_ca.c|tools/testing/selftests/bpf/|BPF [GENERAL]: its BPF programs"
	"tools/testing/selftests/bpf/progs/tcp_tsq_kfunc_mod.c|tools/testing/selftests/bpf/|BPF [GENERAL]: its BPF programs"
	"tools/testing/selftests/bpf/progs/tcp_ca_kfunc_filter.c|tools/testing/selftests/bpf/|BPF [GENERAL]: the programs of bpf_tcp_ca's kfunc_filter subtest (patch 1)"
)

# covered TREE FILE: the justification of FILE, when its F: glob is in
# TREE's MAINTAINERS and matches FILE (a glob's * stays in its directory;
# a directory covers everything below it); nothing otherwise.
covered() {
	local tree=$1 f=$2 e glob
	for e in "${justified[@]}"; do
		[ "${e%%|*}" = "$f" ] || continue
		glob=${e#*|}
		glob=${glob%%|*}
		grep -qxF "F:	$glob" "$tree/MAINTAINERS" || return
		case $glob in
		*/) [[ $f == "$glob"* ]] || return ;;
		*) [ "${f%/*}" = "${glob%/*}" ] && [[ ${f##*/} == ${glob##*/} ]] || return ;;
		esac
		echo "${e##*|}"
		return
	done
}

# checkpatch_one TREE PATCH: checkpatch --strict in the full tree, with
# FILE_PATH_CHANGES ignored when MAINTAINERS covers each added file.
checkpatch_one() {
	local tree=$1 p=$2 f why ignore=() uncovered=
	for f in $(awk '/^diff --git / { f = $4 } /^new file mode/ { print substr(f, 3) }' "$p"); do
		why=$(covered "$tree" "$f")
		[ -n "$why" ] || uncovered+=" $f"
	done
	[ -n "$uncovered" ] || ignore=(--ignore FILE_PATH_CHANGES)
	# Debian's python3 and its ply and git modules for scripts/spdxcheck.py,
	# whatever python3 comes first in PATH (pyenv's has neither).
	out=$(cd "$tree" && PATH=/usr/bin:/bin:$PATH \
		perl scripts/checkpatch.pl --strict -q "${ignore[@]}" "$p" 2>&1)
	if [ -z "$out" ]; then
		echo "PASS: ${p#"$top"/}: checkpatch --strict in the tree"
	else
		echo "FAIL: ${p#"$top"/}: checkpatch --strict: $(echo "$out" | head -3 | tr '\n' ' ')${uncovered:+ (added, not under a justified F: glob:$uncovered)}"
	fi
}

series() {
	local kver=$1 dir=$top/kernel/$1 tree cover n t p patches=() v
	cover=$dir/0000-cover-letter.patch
	for p in "$dir"/*.patch; do
		[ "$p" = "$cover" ] || [ ! -e "$p" ] || patches+=("$p")
	done
	n=${#patches[@]}
	if [ "$n" = 0 ]; then
		echo "# SKIP: kernel/$kver: no series there"
		return
	fi
	tree=$(readlink -f "$cache/src/pristine-$kver")
	if [ ! -f "$tree/.tsq-complete" ]; then
		echo "# SKIP: kernel/$kver: no unpacked source at $cache/src/pristine-$kver (make kernel KVER=$kver)"
		return
	fi
	echo "# kernel/$kver on ${tree##*/}"

	# git am into a repository holding just the files the series touches.
	local g=$tmp/$kver
	git init -q "$g"
	sed -n 's|^--- a/||p' "${patches[@]}" | sort -u | while read -r f; do
		# A file an earlier patch of the series creates.
		[ -f "$tree/$f" ] || continue
		mkdir -p "$g/$(dirname "$f")"
		cp "$tree/$f" "$g/$f"
	done
	git -C "$g" add -A -f
	git -C "$g" -c user.name=t -c user.email=t@t commit -qm base
	if git -C "$g" -c user.name=t -c user.email=t@t am -q "${patches[@]}" >"$g.am" 2>&1; then
		echo "PASS: kernel/$kver: git am applies $n patches"
	else
		echo "FAIL: kernel/$kver: git am: $(head -3 "$g.am" | tr '\n' ' ')"
	fi

	for p in "${patches[@]}"; do
		checkpatch_one "$tree" "$p"
	done

	# The form upstream asks for: a cover letter and every subject tagged.
	t=${tag[$kver]:-PATCH RFC v4 $kver}
	v=$(sed -n 's/^Subject: \[PATCH RFC \(v[0-9]*\).*/\1/p' "$cover" 2>/dev/null)
	if [ "$v" = v3 ]; then
		# Until the v4 series lands: v3 carried one tag for one tree.
		echo "# SKIP: kernel/$kver: subjects: still v3; [$t N/$n] is checked from v4 on"
	else
		if [ -f "$cover" ] && grep -q "^Subject: \[$t 0/$n\]" "$cover"; then
			echo "PASS: kernel/$kver: cover letter [$t 0/$n]"
		else
			echo "FAIL: kernel/$kver: no cover letter tagged [$t 0/$n] at ${cover#"$top"/}"
		fi
		bad=$(for p in "${patches[@]}"; do
			grep -q "^Subject: \[$t [0-9]*/$n\]" "$p" || echo "${p##*/}"
		done)
		if [ -z "$bad" ]; then
			echo "PASS: kernel/$kver: every patch tagged [$t N/$n]"
		else
			echo "FAIL: kernel/$kver: not tagged [$t N/$n]: $bad"
		fi
	fi
	if grep -Eq "${base_re[$kver]:-^base: }" "$cover" 2>/dev/null; then
		echo "PASS: kernel/$kver: the cover letter names its base: $(grep -Em1 "${base_re[$kver]:-^base: }" "$cover" | sed "s/).*/)/")"
	else
		echo "FAIL: kernel/$kver: the cover letter has no line like '${base_eg[$kver]:-base: ...}'"
	fi
	# Every From: and Signed-off-by: is the placeholder a person replaces.
	if ! grep -h '^From: \|^Signed-off-by: ' "${patches[@]}" "$cover" |
		grep -vqF "$placeholder"; then
		echo "PASS: kernel/$kver: author and sign-offs are the marked placeholder"
	else
		echo "FAIL: kernel/$kver: an author or sign-off is not the placeholder"
	fi
	# The cover letter names the test setup and carries numbers.
	if grep -q 'QEMU' "$cover" && grep -q 'vCPU' "$cover" &&
	   grep -Eq '[0-9]+(\.[0-9]+)? (KB|ms)' "$cover"; then
		echo "PASS: kernel/$kver: cover letter names QEMU, vCPUs and measured KB/ms"
	else
		echo "FAIL: kernel/$kver: cover letter lacks the test setup or numbers"
	fi
	# Added lines of kernel code: not the documentation nor the selftests
	# (their own patches). v3 moved the policy into the socket and added
	# groups, whose test for room reserves the skb's bytes: about 1,100
	# lines, most of them net/ipv4/tcp_tsq.c. v4 adds the second kfunc,
	# the composition of calls, and moves the hook into its own file (the
	# bridge, about 210 lines, which a bpf-next posting drops): 1,267.
	# Groups that serve their waiters in turn, with a reservation for the
	# woken and a backstop timer, add about 150: 1,419. A counted policy
	# key, off a second after the last hook or policy went, about 30:
	# 1,452 on 6.12, 1,454 on 7.3. struct tcp_tsq out of tcp_sock, its
	# allocation and RCU accessors, about 60: 1,512 on 6.12, 1,514 on 7.3.
	local code all
	code=$(for p in "${patches[@]}"; do
		awk '/^diff --git/ { skip = ($3 ~ /^a\/(Documentation|tools)\//) }
		     /^\+/ && !/^\+\+\+/ && !skip { n++ } END { print n + 0 }' "$p"
	done | paste -sd+ | bc)
	all=$(cat "${patches[@]}" | grep '^+' | grep -vc '^+++')
	if [ "$code" -le 1550 ]; then
		echo "PASS: kernel/$kver: series adds $code lines of kernel code, $((all - code)) of tests and documentation"
	else
		echo "FAIL: kernel/$kver: series adds $code lines of kernel code, over 1550"
	fi
}

# kernel/bpf-next: one patch against bpf-next's files, never built or
# applied here: a git format-patch with an RFC bpf-next subject and the
# placeholder author and sign-off.
bpf_next() {
	local dir=$top/kernel/bpf-next p ps=()
	for p in "$dir"/*.patch; do
		[ ! -e "$p" ] || ps+=("$p")
	done
	if [ ${#ps[@]} = 0 ]; then
		echo "# SKIP: kernel/bpf-next: no patch there"
		return
	fi
	if [ ${#ps[@]} = 1 ]; then
		echo "PASS: kernel/bpf-next: one patch"
	else
		echo "FAIL: kernel/bpf-next: ${#ps[@]} patches, one expected"
	fi
	for p in "${ps[@]}"; do
		local name=kernel/bpf-next/${p##*/}
		if head -1 "$p" | grep -Eqx 'From [0-9a-f]{40} Mon Sep 17 00:00:00 2001' &&
		   grep -q '^Date: ' "$p" && grep -qx -- '---' "$p" &&
		   grep -q '^diff --git a/' "$p" && grep -qx -- '-- ' "$p" &&
		   git apply --stat "$p" >/dev/null 2>&1; then
			echo "PASS: $name: a git format-patch"
		else
			echo "FAIL: $name: not a git format-patch (From line, Date, ---, diff, signature)"
		fi
		if grep -Eq '^Subject: \[PATCH RFC bpf-next( v[0-9]+)?( [0-9]+/[0-9]+)?\] [^ ]' "$p"; then
			echo "PASS: $name: subject $(sed -n 's/^Subject: \(\[[^]]*\]\).*/\1/p' "$p" | head -1)"
		else
			echo "FAIL: $name: subject not tagged [PATCH RFC bpf-next ...]"
		fi
		if grep -q '^From: ' "$p" && grep -q '^Signed-off-by: ' "$p" &&
		   ! grep -h '^From: \|^Signed-off-by: ' "$p" | grep -vqF "$placeholder"; then
			echo "PASS: $name: author and sign-off are the marked placeholder"
		else
			echo "FAIL: $name: an author or sign-off is missing or not the placeholder"
		fi
	done
}

series 7.3
series 6.12
bpf_next
