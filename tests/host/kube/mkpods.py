#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Pods in the shape `kubectl get pods -o json` prints them (4-space
indent, sorted keys), for tsq-kube's offline tests.

  mkpods.py many N NODE OUT GOLDEN_DIR   N pods on NODE, every other one
      annotated, as one List in OUT, and the drop-ins tsq-kube should write
      for them (systemd driver) in GOLDEN_DIR; each pod also carries the
      annotations a Deployment's pod commonly has (realistic())
  mkpods.py churn N M OUT GOLDEN_DIR      events for the first M of them
      (see churn()) and the drop-ins expected after them
  mkpods.py list OUT NODE POD...         a List of the PODs given as
      NAME:UID:QOS[:POLICY] (no POLICY: no annotation)
  mkpods.py event OUT TYPE NODE POD      one event of TYPE for POD

As a module: pod() builds one.
"""
import json
import os
import sys
import uuid

QOS_LEVEL = {'Guaranteed': '', 'Burstable': 'burstable', 'BestEffort': 'besteffort'}


def resources(qos):
    if qos == 'Guaranteed':
        r = {'cpu': '500m', 'memory': '256Mi'}
        return {'limits': dict(r), 'requests': dict(r)}
    if qos == 'Burstable':
        return {'limits': {'memory': '512Mi'}, 'requests': {'cpu': '100m', 'memory': '128Mi'}}
    return {}


def pod(name, uid, rv, qos='Burstable', policy=None, node='node-1', ns='default',
        phase='Running', extra_annotations=None, ip='10.244.1.10'):
    ann = dict(extra_annotations or {})
    if policy is not None:
        ann['tsq.io/policy'] = policy
    app = name.rsplit('-', 1)[0]
    meta = {
        'creationTimestamp': '2026-12-01T10:00:00Z',
        'generateName': app + '-',
        'labels': {'app': app, 'controller-revision-hash': app + '-6c9f7d8b5f',
                   'statefulset.kubernetes.io/pod-name': name},
        'name': name,
        'namespace': ns,
        'ownerReferences': [{'apiVersion': 'apps/v1', 'blockOwnerDeletion': True,
                             'controller': True, 'kind': 'StatefulSet', 'name': app,
                             'uid': '3f0c1a52-6a1e-4f7e-9c55-0d7b1e2f4a61'}],
        'resourceVersion': str(rv),
        'uid': uid,
    }
    if ann:
        meta['annotations'] = ann
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': meta,
        'spec': {
            'containers': [{
                'image': 'registry.example/' + app + ':1.0',
                'imagePullPolicy': 'IfNotPresent',
                'name': app,
                'ports': [{'containerPort': 8080, 'protocol': 'TCP'}],
                'resources': resources(qos),
                'terminationMessagePath': '/dev/termination-log',
                'terminationMessagePolicy': 'File',
                'volumeMounts': [{'mountPath': '/var/run/secrets/kubernetes.io/serviceaccount',
                                  'name': 'kube-api-access-x7k2p', 'readOnly': True}],
            }],
            'dnsPolicy': 'ClusterFirst',
            'enableServiceLinks': True,
            'hostname': name,
            'nodeName': node,
            'preemptionPolicy': 'PreemptLowerPriority',
            'priority': 0,
            'restartPolicy': 'Always',
            'schedulerName': 'default-scheduler',
            'securityContext': {},
            'serviceAccount': 'default',
            'serviceAccountName': 'default',
            'terminationGracePeriodSeconds': 30,
            'tolerations': [
                {'effect': 'NoExecute', 'key': 'node.kubernetes.io/not-ready',
                 'operator': 'Exists', 'tolerationSeconds': 300},
                {'effect': 'NoExecute', 'key': 'node.kubernetes.io/unreachable',
                 'operator': 'Exists', 'tolerationSeconds': 300}],
            'volumes': [{'name': 'kube-api-access-x7k2p', 'projected': {
                'defaultMode': 420, 'sources': [
                    {'serviceAccountToken': {'expirationSeconds': 3607, 'path': 'token'}},
                    {'configMap': {'items': [{'key': 'ca.crt', 'path': 'ca.crt'}],
                                   'name': 'kube-root-ca.crt'}}]}}],
        },
        'status': {
            'conditions': [
                {'lastProbeTime': None, 'lastTransitionTime': '2026-12-01T10:00:00Z',
                 'status': 'True', 'type': t}
                for t in ('Initialized', 'Ready', 'ContainersReady', 'PodScheduled')],
            'containerStatuses': [{
                'containerID': 'containerd://' + uuid.UUID(uid if len(uid) in (32, 36) else
                                                          '0' * 32).hex * 2,
                'image': 'registry.example/' + app + ':1.0',
                'imageID': 'registry.example/' + app + '@sha256:' + '5f' * 32,
                'lastState': {}, 'name': app, 'ready': True, 'restartCount': 0,
                'started': True,
                'state': {'running': {'startedAt': '2026-12-01T10:00:02Z'}}}],
            'hostIP': '198.18.0.1',
            'phase': phase,
            'podIP': ip,
            'podIPs': [{'ip': ip}],
            'qosClass': qos,
            'startTime': '2026-12-01T10:00:00Z',
        },
    }


def dump(v):
    return json.dumps(v, indent=4, sort_keys=True) + '\n'


def kube_list(items):
    return {'apiVersion': 'v1', 'items': items, 'kind': 'List',
            'metadata': {'resourceVersion': '', 'selfLink': ''}}


def dropin(p, policy):
    """The drop-in tsq-kube writes for p (systemd driver), policy canonical."""
    m, s = p['metadata'], p['status']
    lvl = QOS_LEVEL[s['qosClass']]
    target = 'kubepods-%spod%s.slice' % (lvl + '-' if lvl else '', m['uid'].replace('-', '_'))
    return '# tsq-kube: pod %s/%s, annotation tsq.io/policy\n%s %s\n' % (
        m['namespace'], m['name'], target, policy)


QOS = ('Burstable', 'BestEffort', 'Guaranteed')
# (annotation as written, as tsq's parser writes it back)
POLICIES = (('budget 64k', 'budget 64k'), ('limit 16384 tso 8k', 'limit 16k tso 8k'),
            ('limit-us 2ms', 'limit-us 2000'), ('budget 1m', 'budget 1m'))


def many_uid(i):
    return str(uuid.UUID(int=(0x5eed << 112) | i))


def realistic(name, qos):
    """What kubectl apply, a restart, Prometheus and a CNI leave on a pod:
    about 1.6 KB, most of it kubectl's last-applied-configuration."""
    app = name.rsplit('-', 1)[0]
    applied = {'apiVersion': 'apps/v1', 'kind': 'Deployment',
               'metadata': {'annotations': {}, 'labels': {'app': app}, 'name': app,
                            'namespace': 'default'},
               'spec': {'replicas': 3, 'selector': {'matchLabels': {'app': app}},
                        'template': {'metadata': {'labels': {'app': app}},
                                     'spec': {'containers': [{
                                         'image': 'registry.example/' + app + ':1.0',
                                         'name': app,
                                         'ports': [{'containerPort': 8080}],
                                         'env': [{'name': 'LOG_LEVEL', 'value': 'info'},
                                                 {'name': 'GOMAXPROCS', 'value': '2'}],
                                         'readinessProbe': {'httpGet': {'path': '/healthz',
                                                                        'port': 8080}},
                                         'resources': resources(qos)}]}}}}
    return {
        'kubectl.kubernetes.io/last-applied-configuration': json.dumps(applied, sort_keys=True),
        'kubectl.kubernetes.io/restartedAt': '2026-11-30T08:15:00Z',
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
        'prometheus.io/path': '/metrics',
        'cni.projectcalico.org/containerID': '5f' * 32,
        'cni.projectcalico.org/podIP': '10.244.1.10/32',
        'cni.projectcalico.org/podIPs': '10.244.1.10/32',
    }


def many(n, node, out, golden):
    pods = []
    os.makedirs(golden, exist_ok=True)
    for i in range(n):
        pol = POLICIES[i // 2 % len(POLICIES)] if i % 2 == 0 else None
        p = pod('load-%d' % i, many_uid(i), 10000 + i, QOS[i % 3],
                pol[0] if pol else None, node, ns='load-%d' % (i % 50),
                ip='10.%d.%d.%d' % (i >> 16 & 255, i >> 8 & 255, i & 255),
                extra_annotations=realistic('load-%d' % i, QOS[i % 3]))
        pods.append(p)
        if pol:
            with open(os.path.join(golden, 'tsq-kube-pod-%s.conf' % many_uid(i)), 'w') as f:
                f.write(dropin(p, pol[1]))
    with open(out, 'w') as f:
        f.write(dump(kube_list(pods)))


def churn(n, m, out, golden):
    """Events for the first m of many()'s n pods: an annotated pod's policy
    changes (i % 4 == 0) or the pod goes (i % 4 == 2); a pod without one
    gets "limit 8k". golden: the drop-ins expected after them, all n pods.
    """
    os.makedirs(golden, exist_ok=True)
    with open(out, 'w') as f:
        for i in range(n):
            pol = POLICIES[i // 2 % len(POLICIES)] if i % 2 == 0 else None
            kind = 'same'
            if i < m:
                kind = ('MODIFIED', 'added', 'DELETED', 'added')[i % 4]
                pol = {'MODIFIED': ('budget 32k', 'budget 32k'), 'added': ('limit 8k', 'limit 8k'),
                       'DELETED': pol}[kind]
            p = pod('load-%d' % i, many_uid(i), 20000 + i, QOS[i % 3],
                    pol[0] if pol else None, ns='load-%d' % (i % 50),
                    ip='10.%d.%d.%d' % (i >> 16 & 255, i >> 8 & 255, i & 255))
            if kind != 'same':
                f.write(dump({'type': 'DELETED' if kind == 'DELETED' else 'MODIFIED', 'object': p}))
            if pol and kind != 'DELETED':
                with open(os.path.join(golden, 'tsq-kube-pod-%s.conf' % many_uid(i)), 'w') as g:
                    g.write(dropin(p, pol[1]))


if __name__ == '__main__':
    if sys.argv[1] == 'many':
        many(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1] in ('list', 'event'):
        rv = int(os.environ.get('RV', '100'))
        specs = sys.argv[4:] if sys.argv[1] == 'list' else sys.argv[5:]
        node = sys.argv[3] if sys.argv[1] == 'list' else sys.argv[4]
        pods = []
        for i, spec in enumerate(specs):
            f = spec.split(':', 3)
            pods.append(pod(f[0], f[1], rv + i, f[2], f[3] if len(f) > 3 else None, node))
        with open(sys.argv[2], 'w') as f:
            f.write(dump(kube_list(pods)) if sys.argv[1] == 'list' else
                    dump({'type': sys.argv[3], 'object': pods[0]}))
    elif sys.argv[1] == 'churn':
        churn(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        sys.exit('usage: mkpods.py many|churn|list|event ..., see its docstring')
