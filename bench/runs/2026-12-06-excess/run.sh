#!/bin/bash
# Which unchecked sends make the 100-flow excess over 64 KiB: TLP on
# (tcp_early_retrans 3, default) vs off (0), interleaved, 100 cubic flows
# under budget 64k; per run the qdisc peak, time over 64 KiB and the
# TLP / RTO counters.
. /work/main/tests/vm/lib.sh
tbf_on 100mbit
iperf_server 5201
cgr=/sys/fs/cgroup
mkdir -p $cgr/bulk
"$TSQCTL" attach || exit 1
"$TSQCTL" set /bulk budget 64k || exit 1
ctr() { nstat -sz "$1" | awk -v k="$1" '$1 == k { print $2 }'; }
for rep in 1 2 3 4; do
	for er in 3 0; do
		[ $((rep % 2)) = 0 ] && er=$((3 - er))
		sysctl -qw net.ipv4.tcp_early_retrans=$er
		nstat -n
		CG=$cgr/bulk measure m$rep$er 8 100
		over=$(awk '$2 > 65536 { n++ } END { print n + 0 "/" NR }' "$TMP/m$rep$er.bl")
		echo "rep $rep early_retrans $er peak $(peak m$rep$er) peak1s $(peak m$rep$er 1000) over64k $over goodput $(goodput m$rep$er)" \
		     "tlp $(ctr TcpExtTCPLossProbes) rto $(ctr TcpTimeouts) retrans $(ctr TcpRetransSegs) tlprec $(ctr TcpExtTCPLossProbeRecovery)"
	done
done
"$TSQCTL" reset
