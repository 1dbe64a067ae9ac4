#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Schema check of deploy/kubernetes with Debian's python3-kubernetes.

Each object is read into the client's model class for its apiVersion and
kind (the models' client-side validation refuses a missing required
field or a value of the wrong type), then written back: any field that
did not survive is one the schema does not have (a typo, a wrong level).
Then what a schema cannot say: Bidirectional propagation only in a
privileged container, every volumeMount names a volume, every reference
(service account, ConfigMap and its key) exists. And the Prometheus
config's relabelling, run on the cgroup paths tsq reports for pods.

Prints PASS/FAIL lines; python3-kubernetes 22.6 knows Kubernetes 1.22's API.
"""
import glob
import os
import re
import sys

import yaml

try:
    import kubernetes.client as kc
except ImportError:
    print('# SKIP: manifests: python3-kubernetes is not installed')
    sys.exit(0)

top = sys.argv[1]
deploy = os.path.join(top, 'deploy/kubernetes')
client = kc.ApiClient()
objs = []


def result(ok, name, why=''):
    print(('PASS: ' if ok else 'FAIL: ') + name + ('' if ok else ': ' + why))


def model_name(api_version, kind):
    version = api_version.split('/')[-1]
    return version[0].upper() + version[1:] + kind


def diff(a, b, path=''):
    """Where a (the manifest) has something b (the round trip) lacks."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            if k not in b:
                return path + '.' + k
            d = diff(v, b[k], path + '.' + k)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, '%s[%d]' % (path, i))
            if d:
                return d
        return None
    return None if a == b else '%s (%r became %r)' % (path, a, b)


for f in sorted(glob.glob(os.path.join(deploy, '*.yaml'))):
    for doc in yaml.safe_load_all(open(f)):
        if not doc:
            continue
        name = '%s: %s %s' % (os.path.basename(f), doc.get('kind'), doc.get('metadata', {}).get('name'))
        cls = model_name(doc.get('apiVersion', ''), doc.get('kind', ''))
        if not hasattr(kc.models, cls):
            result(False, name, 'no model %s for apiVersion %s' % (cls, doc.get('apiVersion')))
            continue
        try:
            obj = client._ApiClient__deserialize(doc, cls)
        except (ValueError, TypeError) as e:
            result(False, name, 'refused by %s: %s' % (cls, e))
            continue
        back = client.sanitize_for_serialization(obj)
        d = diff(doc, back)
        result(d is None, name + ' matches the %s schema' % cls, 'not in the schema: ' + str(d))
        objs.append(doc)

by_kind = {}
for o in objs:
    by_kind.setdefault(o['kind'], {})[o['metadata']['name']] = o

ds = by_kind.get('DaemonSet', {}).get('tsq')
if not ds:
    result(False, 'the tsq DaemonSet exists')
    sys.exit(0)
spec = ds['spec']['template']['spec']
vols = {v['name']: v for v in spec.get('volumes', [])}
for c in spec['containers']:
    priv = c.get('securityContext', {}).get('privileged', False)
    for m in c.get('volumeMounts', []):
        result(m['name'] in vols, '%s: mount %s names a volume' % (c['name'], m['mountPath']))
        if m.get('mountPropagation') == 'Bidirectional':
            result(priv, '%s: Bidirectional %s only in a privileged container' %
                   (c['name'], m['mountPath']), 'not privileged')
mounts = {m['mountPath']: m for c in spec['containers'] for m in c.get('volumeMounts', [])}
for path, prop in (('/sys/fs/bpf', 'Bidirectional'), ('/sys/fs/cgroup', None),
                   ('/etc/tsq/tsq.conf.d', None)):
    m = mounts.get(path)
    ok = m and 'hostPath' in vols[m['name']] and (not prop or m.get('mountPropagation') == prop)
    result(ok, 'hostPath %s mounted%s' % (path, ' ' + prop if prop else ''))
sa = spec.get('serviceAccountName')
result(sa in by_kind.get('ServiceAccount', {}), 'service account %s exists' % sa)
crb = [b for b in by_kind.get('ClusterRoleBinding', {}).values()
       if any(s.get('name') == sa for s in b.get('subjects', []))]
rules = [r for b in crb for r in by_kind['ClusterRole'][b['roleRef']['name']]['rules']]
result(any('pods' in r['resources'] and {'list', 'watch'} <= set(r['verbs']) for r in rules),
       'the service account may list and watch pods')
for v in vols.values():
    if 'configMap' in v:
        cm = by_kind.get('ConfigMap', {}).get(v['configMap']['name'])
        keys = [m.get('subPath') for c in spec['containers'] for m in c.get('volumeMounts', [])
                if m['name'] == v['name']]
        result(cm is not None and all(k in cm['data'] for k in keys if k),
               'ConfigMap %s exists with the keys mounted (%s)' % (v['configMap']['name'], keys))
kube = [c for c in spec['containers'] if c['name'] == 'tsq-kube']
env = {e['name']: e for e in kube[0].get('env', [])} if kube else {}
result(env.get('NODE_NAME', {}).get('valueFrom', {}).get('fieldRef', {}).get('fieldPath') ==
       'spec.nodeName', 'tsq-kube gets NODE_NAME from spec.nodeName')

# Prometheus: the relabelling on the cgroup paths of pods, both drivers.
prom = yaml.safe_load(open(os.path.join(deploy, 'prometheus/scrape.yaml')))
rel = prom['scrape_configs'][0]['metric_relabel_configs']
uid = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9'
cases = {
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice' %
    uid.replace('-', '_'): uid,
    '/kubepods.slice/kubepods-pod%s.slice/cri-containerd-0a1b.scope' % uid.replace('-', '_'): uid,
    '/kubepods/besteffort/pod%s' % uid: uid,
    '/kubepods/pod%s/0a1b2c' % uid: uid,
    '/system.slice/backup.service': None,
    '/kubepods.slice/kubepods-besteffort.slice': None,
}
for cgroup, want in cases.items():
    got = None
    for r in rel:
        # Prometheus anchors its regexes at both ends.
        m = re.fullmatch(r['regex'], cgroup)
        if m:
            got = re.sub(r'\$(\d)', lambda g: m.group(int(g.group(1))), r['replacement'])
    result(got == want, 'relabel %s -> uid %s' % (cgroup, want), 'got %s' % got)
