# SPDX-License-Identifier: GPL-2.0
# The stub API server for tsq-kube's tests (sourced by tests/host/test_kube.sh
# and tests/vm/t_kube.sh): a CA and a certificate for 127.0.0.1 made now,
# a bearer token, apiserver.py on a loopback port.
#
#   kube_stub_start DIR     start it; files in DIR; sets KUBE_STUB_PID, KUBE_URL
#   kube_ctl CMD...         one command to it (apiserver.py's docstring)
#   kube_args               tsq-kube's arguments to reach it
KUBE_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KUBE_PY=/usr/bin/python3

kube_stub_start() {
	local d=$1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
		-subj /CN=tsq-test-ca -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
		-keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$d/ext" &&
	openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-days 1 -extfile "$d/ext" -out "$d/srv.crt" 2>/dev/null || return 1
	head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$d/token"
	mkfifo "$d/ctl"
	"$KUBE_PY" "$KUBE_HERE/apiserver.py" --cert "$d/srv.crt" --key "$d/srv.key" \
		--token "$d/token" --control "$d/ctl" --log "$d/requests" \
		--port-file "$d/port" --lifetime "${KUBE_STUB_LIFETIME:-600}" &
	KUBE_STUB_PID=$! KUBE_STUB_DIR=$d
	for _ in $(seq 200); do [ -s "$d/port" ] && break; sleep 0.05; done
	[ -s "$d/port" ] || return 1
	KUBE_URL=https://127.0.0.1:$(cat "$d/port")
}

kube_ctl() { echo "$*" >"$KUBE_STUB_DIR/ctl"; }

kube_args() {
	echo --server "$KUBE_URL" --ca "$KUBE_STUB_DIR/ca.crt" --token "$KUBE_STUB_DIR/token"
}
