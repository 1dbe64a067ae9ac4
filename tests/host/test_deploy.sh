#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deploy/kubernetes: a schema check of every manifest with Debian's
# python3-kubernetes models (tests/host/kube/check_manifests.py), the
# references between them, the Prometheus relabelling on pods' cgroup
# paths; and that the check catches a misspelt field and a wrong type.
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/tests/host/kube/check_manifests.py
py=/usr/bin/python3
"$py" -c 'import kubernetes.client, yaml' 2>/dev/null ||
	{ echo "# SKIP: test_deploy: no python3-kubernetes (scripts/install-deps.sh)"; exit 0; }
"$py" "$check" "$top"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/deploy"
cp -r "$top/deploy/kubernetes" "$t/deploy/"
sed -i 's/mountPropagation: Bidirectional/mountPropagaton: Bidirectional/' \
	"$t/deploy/kubernetes/daemonset.yaml"
out=$("$py" "$check" "$t")
grep -q 'FAIL: daemonset.yaml: .*not in the schema: .*mountPropagaton' <<<"$out" &&
	echo "PASS: the check finds a misspelt field" ||
	echo "FAIL: a misspelt field passed: $(grep daemonset.yaml <<<"$out")"
sed -i 's/mountPropagaton: Bidirectional/mountPropagation: Bidirectional/' \
	"$t/deploy/kubernetes/daemonset.yaml"
sed -i 's/containerPort: 9731/containerPort: "9731"/' "$t/deploy/kubernetes/daemonset.yaml"
out=$("$py" "$check" "$t")
grep -q "FAIL: daemonset.yaml: .*containerPort ('9731' became 9731)" <<<"$out" &&
	echo "PASS: the check finds a string where the schema wants an integer" ||
	echo "FAIL: a wrong type passed: $(grep daemonset.yaml <<<"$out")"
