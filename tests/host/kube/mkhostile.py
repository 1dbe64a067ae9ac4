#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lists and events that attack tsq-kube (tests/host/test_kube_hostile.sh),
compact as the API server writes them. Pods are mkpods.pod()'s, on node-1.

  mkhostile.py empties OUT BYTES       a list whose items are {} up to BYTES,
      then one pod "tail-0" with "limit 16k"
  mkhostile.py annotated OUT N COUNT VALUE
      N pods "ann-I" with "budget 64k", each with COUNT more annotations
      "kJ" of VALUE bytes each
  mkhostile.py big OUT N SIZE OVER     N pods "big-I" with "limit 8k", each
      padded (container env) to SIZE bytes, one "over-0" of OVER bytes with
      "limit 4k", then "normal-0" with "limit 16k"
  mkhostile.py mirror OUT VICTIM_UID ATTACKER_UID STATIC_UID
      default/victim-0 ("limit 16k"); tenant-b/attacker-0 ("budget 1",
      config.mirror VICTIM_UID, no config.source); tenant-c/forger-0 ("budget
      2", config.mirror VICTIM_UID, a forged config.source file); kube-system/etcd-node-1,
      a static pod's mirror (config.source file, config.mirror STATIC_UID,
      "limit 32k")
  mkhostile.py event OUT TYPE FILE NAME   one event of TYPE for the pod NAME
      of the list FILE
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkpods import pod  # noqa: E402

UID = '7e57%04x-0000-4000-8000-%012x'


def compact(v):
    return json.dumps(v, separators=(',', ':'))


def write_list(out, pods, rv=100, raw_items=b''):
    head = compact({'kind': 'PodList', 'apiVersion': 'v1',
                    'metadata': {'resourceVersion': str(rv)}})
    with open(out, 'wb') as f:
        f.write(head[:-1].encode() + b',"items":[' + raw_items)
        f.write((',' if raw_items and pods else '').encode())
        f.write(','.join(compact(p) for p in pods).encode() + b']}')


def pad(p, size):
    """p grown to size bytes by env entries of its container."""
    env = p['spec']['containers'][0].setdefault('env', [])
    n = len(compact(p))
    i = 0
    while n < size:
        e = {'name': 'PAD_%06d' % i, 'value': 'x' * min(200, max(1, size - n - 40))}
        env.append(e)
        n += len(compact(e)) + 1
        i += 1
    return p


def main():
    kind, out = sys.argv[1], sys.argv[2]
    a = sys.argv[3:]
    if kind == 'empties':
        n = int(a[0]) // 3
        write_list(out, [pod('tail-0', UID % (0, 0), 100, policy='limit 16k')],
                   raw_items=b','.join([b'{}'] * n))
    elif kind == 'annotated':
        n, count, value = int(a[0]), int(a[1]), int(a[2])
        pods = []
        for i in range(n):
            ann = {'k%d' % j: 'v' * value for j in range(count)}
            pods.append(pod('ann-%d' % i, UID % (1, i), 100 + i, policy='budget 64k',
                            extra_annotations=ann))
        write_list(out, pods)
    elif kind == 'big':
        n, size, over = int(a[0]), int(a[1]), int(a[2])
        pods = [pad(pod('big-%d' % i, UID % (2, i), 100 + i, policy='limit 8k'), size)
                for i in range(n)]
        pods.append(pad(pod('over-0', UID % (3, 0), 200, policy='limit 4k'), over))
        pods.append(pod('normal-0', UID % (4, 0), 201, policy='limit 16k'))
        write_list(out, pods, rv=300)
    elif kind == 'mirror':
        victim, attacker, static = a
        pods = [pod('victim-0', victim, 100, policy='limit 16k'),
                pod('attacker-0', attacker, 101, ns='tenant-b', policy='budget 1',
                    extra_annotations={'kubernetes.io/config.mirror': victim}),
                pod('forger-0', 'f0f0f0f0-0000-4000-8000-0000000000c3', 103, ns='tenant-c',
                    policy='budget 2',
                    extra_annotations={'kubernetes.io/config.mirror': victim,
                                       'kubernetes.io/config.source': 'file'}),
                pod('etcd-node-1', 'a1b2c3d4-0000-4000-8000-00000000e7cd', 102,
                    ns='kube-system', policy='limit 32k',
                    extra_annotations={'kubernetes.io/config.mirror': static,
                                       'kubernetes.io/config.source': 'file',
                                       'kubernetes.io/config.hash': static})]
        write_list(out, pods)
    elif kind == 'event':
        typ, lst, name = a
        with open(lst) as f:
            items = json.load(f)['items']
        p = next(p for p in items if p['metadata']['name'] == name)
        p['metadata']['resourceVersion'] = str(int(p['metadata']['resourceVersion']) + 1000)
        with open(out, 'w') as f:
            f.write(compact({'type': typ, 'object': p}) + '\n')
    else:
        sys.exit('usage: mkhostile.py empties|annotated|big|mirror|event ..., see its docstring')


if __name__ == '__main__':
    main()
