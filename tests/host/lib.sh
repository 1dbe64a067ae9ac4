# SPDX-License-Identifier: GPL-2.0
# Sourced by the host tests that need only these: the tree's top, a
# scratch directory removed at exit, and the PASS/FAIL lines that
# tests/host/run counts.
# shellcheck shell=bash disable=SC2034
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
