#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A stub Kubernetes API server for tsq-kube's offline tests.

HTTPS on loopback with a test CA, bearer token checked. It serves what
the test tells it through a FIFO, one command a line:

  list FILE [expire]  the next list request (paged by limit/continue) from
                      FILE, a List as `kubectl get pods -o json` prints it;
                      "expire": a continue token of it gets 410 Gone
  events FILE         the events of FILE on the watch (now or next one),
                      in one chunk:
                      `kubectl get pods -o json --watch --output-watch-events`
                      output; a bare Pod is ADDED (new uid) or MODIFIED
  raw TEXT            TEXT as it is, plus a newline, on the watch
  drop FILE           half of FILE's first event, then the connection cut
  gone                an ERROR event with a 410 Status, then the watch ends
  end                 the watch ends, as at its timeoutSeconds
  quit

and, for the attacks of tests/host/test_kube_hostile.sh:

  rawlist FILE        the next list request gets FILE's bytes as they are
  sticky FILE         a list request with none queued gets FILE, every time
  watchmode MODE      a watch with nothing queued: "wait" (the default),
                      "gone-http" (a 410 Status), "gone-event" (an ERROR
                      410 event, then the end), "empty" (it ends at once)
  endless             every list page: 500 new pods with a policy, and a
                      continue token for more, without end

Requests are logged one JSON object a line to --log. Only for tests: it
binds 127.0.0.1 and stops by itself after --lifetime seconds.
"""
import argparse
import base64
import collections
import http.server
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse

lock = threading.Condition()
lists = collections.deque()
watch_q = collections.deque()
seen_uids = set()
list_cache = {}
watch_gen = 0
quitting = False
sticky = None
watch_mode = 'wait'
endless = False


GONE = {'type': 'ERROR', 'object': {
    'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
    'status': 'Failure', 'reason': 'Expired', 'code': 410,
    'message': 'too old resource version: 1 (2)'}}


def values(path):
    """The JSON values of a file, one after another (pretty-printed or not)."""
    text = open(path).read()
    dec = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return
        v, i = dec.raw_decode(text, i)
        yield v


def events(path):
    for v in values(path):
        if 'type' in v and 'object' in v:
            evs = [v]
        elif v.get('kind') == 'Pod':
            evs = [{'type': 'ADDED' if v['metadata']['uid'] not in seen_uids
                    else 'MODIFIED', 'object': v}]
        else:
            evs = [{'type': 'ADDED', 'object': o} for o in v.get('items', [])]
        for e in evs:
            uid = e['object'].get('metadata', {}).get('uid')
            if uid:
                seen_uids.add(uid)
            # As the API server writes a watch: one compact event a line.
            yield (json.dumps(e, separators=(',', ':')) + '\n').encode()


def control(fifo):
    global quitting, sticky, watch_mode, endless
    # Read-write: a writer that closes is no end of file.
    f = open(os.open(fifo, os.O_RDWR), 'r')
    for line in f:
        words = line.rstrip('\n').split(' ', 1)
        cmd, arg = words[0], words[1] if len(words) > 1 else ''
        with lock:
            if cmd == 'list':
                a = arg.split()
                lists.append((a[0], len(a) > 1 and a[1] == 'expire'))
            elif cmd == 'events':
                # One chunk for the file: events that share a read, as
                # TCP delivers them under load.
                watch_q.append(('data', b''.join(events(arg))))
            elif cmd == 'raw':
                watch_q.append(('data', (arg + '\n').encode()))
            elif cmd == 'drop':
                e = next(events(arg))
                watch_q.append(('drop', e[:len(e) // 2]))
            elif cmd == 'gone':
                watch_q.append(('data', (json.dumps(GONE) + '\n').encode()))
                watch_q.append(('end', b''))
            elif cmd == 'end':
                watch_q.append(('end', b''))
            elif cmd == 'rawlist':
                lists.append((arg, 'raw'))
            elif cmd == 'sticky':
                sticky = arg
            elif cmd == 'watchmode':
                watch_mode = arg
            elif cmd == 'endless':
                endless = True
            elif cmd == 'quit':
                quitting = True
            lock.notify_all()
        if quitting:
            os._exit(0)


def selector_matches(pod, sel):
    for term in filter(None, sel.split(',')):
        k, _, v = term.partition('=')
        if k == 'spec.nodeName' and pod.get('spec', {}).get('nodeName') != v:
            return False
    return True


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def status(self, code, reason, msg):
        self.reply(code, {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
                          'status': 'Failure', 'reason': reason, 'message': msg,
                          'code': code})

    def chunk(self, data):
        self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
        self.wfile.flush()

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        auth = self.headers.get('Authorization') == 'Bearer ' + self.server.token
        with open(self.server.log, 'a') as f:
            f.write(json.dumps({'t': time.time(), 'path': u.path, 'query': q,
                                'auth': auth, 'agent': self.headers.get('User-Agent')}) + '\n')
        if not auth:
            return self.status(401, 'Unauthorized', 'Unauthorized')
        if u.path != '/api/v1/pods':
            return self.status(404, 'NotFound', 'the server could not find the requested resource')
        if q.get('watch') in ('1', 'true'):
            return self.watch()
        return self.list(q)

    def send_body(self, body):
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        for i in range(0, len(body), 1 << 20):
            self.wfile.write(body[i:i + (1 << 20)])

    def endless_page(self, q):
        """500 pods never seen, and a continue token: a list without end."""
        page = int(json.loads(base64.b64decode(q['continue']))[2]) if q.get('continue') else 0
        items = []
        for i in range(500):
            n = page * 500 + i
            items.append(json.dumps({
                'kind': 'Pod', 'metadata': {
                    'name': 'flood-%d' % n, 'namespace': 'flood', 'resourceVersion': '7',
                    'uid': '%08x-0000-4000-8000-%012x' % (page, n),
                    'annotations': {'tsq.io/policy': 'limit 8k'}},
                'spec': {'nodeName': q.get('fieldSelector', '').partition('=')[2]},
                'status': {'phase': 'Running', 'qosClass': 'Burstable'}},
                separators=(',', ':')))
        cont = base64.b64encode(json.dumps(['endless', False, page + 1]).encode()).decode()
        head = json.dumps({'kind': 'PodList', 'apiVersion': 'v1',
                           'metadata': {'resourceVersion': '7', 'continue': cont}})
        self.send_body(head[:-1].encode() + b',"items":[' + ','.join(items).encode() + b']}')

    def list(self, q):
        limit = int(q.get('limit', '0') or 0)
        cont = q.get('continue')
        if endless:
            return self.endless_page(q)
        if cont:
            path, expire, off = json.loads(base64.b64decode(cont))
            if expire:
                return self.status(410, 'Expired', 'The provided continue parameter is too old')
        else:
            with lock:
                lock.wait_for(lambda: lists or sticky, timeout=30)
                if not lists and not sticky:
                    return self.status(503, 'ServiceUnavailable', 'no list queued')
                path, expire = lists.popleft() if lists else (sticky, False)
            if expire == 'raw':
                with open(path, 'rb') as f:
                    return self.send_body(f.read())
            off = 0
        # Each pod encoded once: the stub must not be what a 5,000-pod
        # list waits for.
        key = (path, q.get('fieldSelector', ''))
        if key not in list_cache:
            lst = next(values(path))
            items = [p for p in lst['items'] if selector_matches(p, key[1])]
            rv = lst.get('metadata', {}).get('resourceVersion') or \
                str(max([int(p['metadata']['resourceVersion']) for p in lst['items']] or [1]))
            list_cache[key] = (rv, [json.dumps(p, separators=(',', ':')).encode() for p in items],
                               [p['metadata']['uid'] for p in items])
        rv, items, uids = list_cache[key]
        with lock:
            seen_uids.update(uids)
        end = off + limit if limit else len(items)
        meta = {'resourceVersion': rv}
        if end < len(items):
            meta['continue'] = base64.b64encode(json.dumps([path, expire, end]).encode()).decode()
        head = json.dumps({'kind': 'PodList', 'apiVersion': 'v1', 'metadata': meta})
        self.send_body(head[:-1].encode() + b',"items":[' + b','.join(items[off:end]) + b']}')

    def watch(self):
        global watch_gen
        with lock:
            watch_gen += 1
            me = watch_gen
            lock.notify_all()
            mode = watch_mode if not watch_q else 'wait'
        if mode == 'gone-http':
            return self.status(410, 'Expired', 'too old resource version: 1 (2)')
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()
        self.wfile.flush()
        deadline = time.time() + self.server.lifetime
        if mode == 'gone-event':
            self.chunk((json.dumps(GONE) + '\n').encode())
        if mode in ('gone-event', 'empty'):
            self.wfile.write(b'0\r\n\r\n')
            self.wfile.flush()
            return
        while True:
            # Only the newest watch takes from the queue: the agent has
            # given up an older one, whose socket may not have closed yet.
            with lock:
                lock.wait_for(lambda: watch_q or quitting or watch_gen != me,
                              timeout=max(0, deadline - time.time()))
                if watch_gen != me:
                    return
                if not watch_q:
                    what, data = 'end', b''
                else:
                    what, data = watch_q.popleft()
            if what == 'data':
                try:
                    self.chunk(data)
                except OSError:
                    with lock:
                        watch_q.appendleft((what, data))
                        lock.notify_all()
                    return
            elif what == 'drop':
                # A chunk that says more than it holds, then the cut.
                self.wfile.write(b'%x\r\n%s' % (len(data) * 2, data))
                self.wfile.flush()
                self.close_connection = True
                return
            else:
                self.wfile.write(b'0\r\n\r\n')
                self.wfile.flush()
                return


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # The agent closing a response it refuses (a pod too many, a
        # stream it stops reading) is no error of the stub's.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cert', required=True)
    ap.add_argument('--key', required=True)
    ap.add_argument('--token', required=True)
    ap.add_argument('--control', required=True)
    ap.add_argument('--log', required=True)
    ap.add_argument('--port-file', required=True)
    ap.add_argument('--lifetime', type=float, default=600)
    a = ap.parse_args()
    srv = Server(('127.0.0.1', 0), Handler)
    srv.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.token = open(a.token).read().strip()
    srv.log = a.log
    srv.lifetime = a.lifetime
    threading.Thread(target=control, args=(a.control,), daemon=True).start()
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    with open(a.port_file + '.tmp', 'w') as f:
        f.write(str(srv.server_address[1]))
    os.rename(a.port_file + '.tmp', a.port_file)
    srv.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
