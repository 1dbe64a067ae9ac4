#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The hash that names a kernel series in run logs, commit messages and
# the cover letter: the first 12 hex digits of SHA-256 over the diffs of
# its patches, not their messages, so that a message can quote a log of
# its own series.
#
# usage: series-hash.sh DIR     (kernel/7.3, kernel/6.12)
set -euo pipefail

dir=${1:?usage: series-hash.sh DIR}
patches=()
for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$p" ] || continue
	[ "${p##*/}" = 0000-cover-letter.patch ] || patches+=("$p")
done
[ ${#patches[@]} -gt 0 ] || { echo "series-hash: no patches in $dir" >&2; exit 1; }
# A diff runs from its "diff --git" line to the signature's "-- ".
sed -n '/^diff --git /,/^-- $/p' "${patches[@]}" | sha256sum | cut -c1-12
