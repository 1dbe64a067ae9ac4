#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold N established TCP sockets (N/2 loopback connections) while CMD
runs, then print one JSON line: CMD's wall time and CPU time (its
rusage, kernel time included, so the BPF iterator it runs counts).

usage: bench/manysocks.py N CMD [ARGS...]   (raise ulimit -n first)
"""
import json
import resource
import socket
import subprocess
import sys
import time


def main():
    n = int(sys.argv[1])
    cmd = sys.argv[2:]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1024)
    held = []
    for _ in range(n // 2):
        c = socket.create_connection(srv.getsockname())
        s, _ = srv.accept()
        held += [c, s]
    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    user, sys_ = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
    print(json.dumps({"sockets": len(held), "rc": rc, "wall_s": round(wall, 3),
                      "user_s": round(user, 3), "sys_s": round(sys_, 3),
                      "cpu_pct": round(100 * (user + sys_) / wall, 3)}))
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
