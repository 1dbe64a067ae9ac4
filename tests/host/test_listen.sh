#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Who reads tsqd's endpoint. Its cgroup paths name every pod and user of
# the node and each scrape walks every socket, so:
# - the shipped DaemonSet listens on the node's loopback, and its
#   liveness probe asks there, for /healthz; the opt-in patch keeps its
#   args but --listen and takes the token from a Secret it mounts;
# - tsqd refuses a non-loopback --listen without --metrics-token, in one
#   line, exit 2, and listens on nothing;
# - with a token, a request without it (or with a wrong one) gets 401
#   and not one cgroup path; with it, the metrics; /healthz needs none;
#   SIGHUP rereads the token;
# - a token file tsqd cannot use is one line, exit 1.
top=$(cd "$(dirname "$0")/../.." && pwd)
tsqd=${OUTPUT:-$top/.output}/tsqd
t=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$t"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

/usr/bin/python3 - "$top/deploy/kubernetes/daemonset.yaml" \
	"$top/deploy/kubernetes/prometheus/daemonset-metrics.patch.yaml" <<'PY'
import ipaddress, sys, yaml
ds = yaml.safe_load(open(sys.argv[1]))
c = next(c for c in ds['spec']['template']['spec']['containers'] if c['name'] == 'tsqd')
listen = [a.split('=', 1)[1] for a in c.get('args', []) if a.startswith('--listen=')]
ok = len(listen) == 1 and ipaddress.ip_address(listen[0].rsplit(':', 1)[0].strip('[]')).is_loopback
print(f"PASS: daemonset.yaml: tsqd listens on {listen[0]}, loopback" if ok else
      f"FAIL: daemonset.yaml: tsqd's --listen is {listen}, not loopback")
probe = c.get('livenessProbe', {}).get('httpGet', {})
ok = probe.get('host') == '127.0.0.1' and probe.get('path') == '/healthz'
print("PASS: daemonset.yaml: the liveness probe asks 127.0.0.1 for /healthz" if ok else
      f"FAIL: daemonset.yaml: the liveness probe asks {probe}")

# The opt-in patch: the shipped args but --listen, the token file in the
# Secret's volume, mounted into tsqd.
patch = yaml.safe_load(open(sys.argv[2]))
pc = patch['spec']['template']['spec']['containers'][0]
pargs = pc['args']
keep = [a for a in c['args'] if not a.startswith('--listen=')]
tok = [a.split('=', 1)[1] for a in pargs if a.startswith('--metrics-token=')]
plisten = [a.split('=', 1)[1] for a in pargs if a.startswith('--listen=')]
mounts = {m['name']: m['mountPath'] for m in pc.get('volumeMounts', [])}
vols = {v['name']: v for v in patch['spec']['template']['spec'].get('volumes', [])}
ok = (pc['name'] == 'tsqd' and [a for a in pargs if not a.startswith(('--listen=', '--metrics-token='))] == keep
      and len(tok) == 1 and len(plisten) == 1
      and not ipaddress.ip_address(plisten[0].rsplit(':', 1)[0].strip('[]')).is_loopback
      and any(tok[0].startswith(p.rstrip('/') + '/') and 'secret' in vols.get(n, {})
              for n, p in mounts.items()))
print(f"PASS: the opt-in patch: shipped args, --listen={plisten[0]}, the token from a Secret's volume"
      if ok else f"FAIL: the opt-in patch: args {pargs}, mounts {mounts}, volumes {list(vols)}")

# Merged as kubectl patch would (containers and volumes by name, mounts
# by path, args replaced), the DaemonSet still reads as one.
try:
    import kubernetes.client as kc
except ImportError:
    kc = None
if not kc:
    print("# SKIP: the patched DaemonSet's schema: no python3-kubernetes")
else:
    import copy
    ds2 = copy.deepcopy(ds)
    spec = ds2['spec']['template']['spec']
    tc = next(x for x in spec['containers'] if x['name'] == 'tsqd')
    tc['args'] = pargs
    tc['volumeMounts'] += [m for m in pc['volumeMounts']
                           if m['mountPath'] not in {x['mountPath'] for x in tc['volumeMounts']}]
    spec['volumes'] += [v for v in vols.values() if v['name'] not in {x['name'] for x in spec['volumes']}]
    try:
        obj = kc.ApiClient()._ApiClient__deserialize(ds2, 'V1DaemonSet')
        back = kc.ApiClient().sanitize_for_serialization(obj)
        ok = back['spec']['template']['spec']['volumes'][-1] == vols['metrics-token']
        print("PASS: the DaemonSet with the patch reads as a V1DaemonSet" if ok else
              "FAIL: the patched DaemonSet lost its token volume in the round trip")
    except (ValueError, TypeError) as e:
        print(f"FAIL: the DaemonSet with the patch: {e}")
PY

[ "$(id -u)" = 0 ] || { echo "# SKIP: test_listen: tsqd needs root"; exit 0; }
port=$((20000 + ($$ + 77) % 20000))

. "$top/tests/host/tsqd_private.sh"
expect "--listen 0.0.0.0 without a token: refused" 2 \
	'^tsqd: --listen 0.0.0.0:[0-9]+ is not a loopback address.*--metrics-token' \
	"$tsqd" --listen "0.0.0.0:$port" --log-interval 0
expect "--listen [::] without a token: refused" 2 'is not a loopback address' \
	"$tsqd" --listen "[::]:$port" --log-interval 0
if ss -Hltn "sport = :$port" | grep -q .; then
	fail "something listens on port $port after the refusals"
else
	pass "nothing listens on port $port after the refusals"
fi
printf 'short\n' >"$t/short"
expect "a token of 5 characters: refused" 1 '^tsqd: --metrics-token .*: want one line of 16' \
	"$tsqd" --listen "0.0.0.0:$port" --metrics-token "$t/short"
expect "a missing token file: refused" 1 '^tsqd: --metrics-token .*/nofile: No such file' \
	"$tsqd" --listen "0.0.0.0:$port" --metrics-token "$t/nofile"
expect "--metrics-token with --listen none: refused" 2 'without an endpoint' \
	"$tsqd" --listen none --metrics-token "$t/short"

# The opt-in: all addresses, a token. A cgroup of ours has a socket, so
# that a leak would show its path.
head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$t/token"
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=$cgmnt/tsqlisten-$$
mkdir "$cg" && trap 'kill "$pid" "$nc" 2>/dev/null; wait 2>/dev/null; rmdir "$cg"; rm -rf "$t"' EXIT
sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "
import socket, time
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a = s.accept()
time.sleep(30)"' sh "$cg" &
nc=$!
unshare -m sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0" "$@"' "$tsqd" \
	--listen "0.0.0.0:$port" --metrics-token "$t/token" --log-interval 0 2>"$t/log" &
pid=$!
for _ in $(seq 50); do grep -q 'statistics on' "$t/log" && break; sleep 0.1; done
sleep 0.5
tok=$(cat "$t/token")
code() { curl -s -o "$t/body" -w '%{http_code}' --max-time 5 "$@"; }
for p in /metrics /stats.json; do
	c=$(code "http://127.0.0.1:$port$p")
	if [ "$c" = 401 ] && ! grep -q "tsqlisten-$$" "$t/body" && ! grep -q cgroup "$t/body"; then
		pass "$p without the token: 401, no cgroup in $(wc -c <"$t/body") bytes"
	else
		fail "$p without the token: $c, $(head -c 200 "$t/body")"
	fi
	c=$(code -H "Authorization: Bearer x$tok" "http://127.0.0.1:$port$p")
	[ "$c" = 401 ] && pass "$p with a wrong token: 401" || fail "$p with a wrong token: $c"
done
c=$(code -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/stats.json")
if [ "$c" = 200 ] && jq -e --arg p "/tsqlisten-$$" \
	'[.cgroups[] | select(.cgroup == $p and .established >= 1)] | length == 1' "$t/body" >/dev/null; then
	pass "/stats.json with the token: 200, our cgroup and its sockets"
else
	fail "/stats.json with the token: $c, $(head -c 200 "$t/body")"
fi
c=$(code "http://127.0.0.1:$port/healthz")
[ "$c" = 200 ] && [ "$(cat "$t/body")" = ok ] && pass "/healthz without the token: ok" ||
	fail "/healthz: $c $(head -c 100 "$t/body")"
# SIGHUP rereads the file: the new token in, the old out.
head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$t/token"
kill -HUP "$pid"
sleep 0.5
c1=$(code -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/metrics")
c2=$(code -H "Authorization: Bearer $(cat "$t/token")" "http://127.0.0.1:$port/metrics")
[ "$c1" = 401 ] && [ "$c2" = 200 ] && grep -q '^tsq_observation_mode 1$' "$t/body" &&
	pass "SIGHUP: the new token in force (200), the old refused (401)" ||
	fail "SIGHUP: old token $c1, new token $c2"
grep -q 'statistics on http://0.0.0.0:[0-9]*/metrics and /stats.json, for bearers of the token' "$t/log" &&
	pass "the log says the token is needed" || fail "log: $(head -c 300 "$t/log")"
exit 0
