// SPDX-License-Identifier: GPL-2.0
/* A node's pods from the Kubernetes API, with libcurl and json-c.
 *
 * A list comes in pages of KUBE_LIST_PAGE pods (limit/continue), and a
 * page's pods are read one by one as the bytes arrive; a watch is a
 * chunked response of one event after another, read the same way. Of
 * each, only the members tsq-kube uses are kept (struct kube_keep). The
 * field selector spec.nodeName=NODE makes the server send this node's
 * pods only. Everything the server sends is input to check: a status
 * line, a Status body, the JSON's shape, its size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "apiclient.h"
#include "jsonstream.h"
#include "pod.h"
#include "quote.h"

#define TOKEN_MAX	16384	/* bytes; a service account JWT is about 1 KB */
#define CONNECT_TIMEOUT	10	/* s */
#define LIST_TIMEOUT	120	/* s for one page */

#ifndef TSQ_VERSION
#define TSQ_VERSION "unknown"
#endif

static char *join(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

/* What is read: keep_init()'s tables, filled in with the annotation key. */
static void keep_init(struct kube_keep *k, const char *annotation)
{
	const struct kube_keep init = {
		.ann = { { annotation }, { KUBE_MIRROR_ANNOTATION }, { KUBE_SOURCE_ANNOTATION } },
		.meta = { { "uid" }, { "name" }, { "namespace" }, { "resourceVersion" },
			  { "annotations", k->ann } },
		.spec = { { "nodeName" } },
		.status = { { "phase" }, { "qosClass" } },
		.pod = { { "metadata", k->meta }, { "spec", k->spec }, { "status", k->status } },
		/* A pod, or a Status (an ERROR event's code and message). */
		.event_obj = { { "metadata", k->meta }, { "spec", k->spec },
			       { "status", k->status }, { "code" }, { "message" } },
		.event = { { "type" }, { "object", k->event_obj } },
		.list_meta = { { "resourceVersion" }, { "continue" } },
		.page = { { "metadata", k->list_meta }, { "items", k->pod, true } },
	};

	*k = init;
}

int kube_api_init(struct kube_api *api, const char *server, const char *ca_file,
		  const char *token_file, const char *node, const char *annotation,
		  char *err, size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	char *sel = NULL, *esc;
	CURL *c;

	memset(api, 0, sizeof(*api));
	api->watch_timeout = 300;
	api->max_list = (size_t)-1;
	keep_init(&api->keep, annotation);
	if (server) {
		if (strncmp(server, "https://", 8) || strlen(server) < 9) {
			snprintf(err, errlen, "--server must be an https:// URL");
			return -EINVAL;
		}
		api->server = strdup(server);
	} else if (host && *host && port && *port) {
		/* An IPv6 service address needs brackets in a URL. */
		if (asprintf(&api->server, strchr(host, ':') ? "https://[%s]:%s" :
			     "https://%s:%s", host, port) < 0)
			api->server = NULL;
	} else {
		snprintf(err, errlen, "not in a pod ($KUBERNETES_SERVICE_HOST unset) "
			 "and no --server given");
		return -EINVAL;
	}
	api->ca_file = ca_file ? strdup(ca_file) : join(KUBE_SA_DIR, "/ca.crt");
	api->token_file = token_file ? strdup(token_file) : join(KUBE_SA_DIR, "/token");
	c = curl_easy_init();
	if (c && asprintf(&sel, "spec.nodeName=%s", node) >= 0) {
		esc = curl_easy_escape(c, sel, 0);
		api->selector = esc ? strdup(esc) : NULL;
		curl_free(esc);
	}
	free(sel);
	api->curl = c;
	if (!api->server || !api->ca_file || !api->token_file || !api->selector || !c) {
		kube_api_free(api);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Trailing slashes would double in the paths below. */
	for (size_t n = strlen(api->server); n > 8 && api->server[n - 1] == '/'; n--)
		api->server[n - 1] = '\0';
	return 0;
}

void kube_api_free(struct kube_api *api)
{
	if (api->curl)
		curl_easy_cleanup(api->curl);
	free(api->server);
	free(api->ca_file);
	free(api->token_file);
	free(api->selector);
	memset(api, 0, sizeof(*api));
}

/* "Authorization: Bearer TOKEN" from the token file, read now: the
 * kubelet rewrites a projected token before it expires.
 */
static int auth_header(const struct kube_api *api, char **hdr, char *err, size_t errlen)
{
	char buf[TOKEN_MAX + 2];
	ssize_t n;
	int fd = open(api->token_file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", api->token_file, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", api->token_file, strerror(errno));
		return -EIO;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	if (!n || n > TOKEN_MAX) {
		snprintf(err, errlen, "%s: %s token", api->token_file, n ? "too long a" : "no");
		return -EINVAL;
	}
	/* A header line carries no control character or blank. */
	for (ssize_t i = 0; i < n; i++) {
		if ((unsigned char)buf[i] <= 0x20 || (unsigned char)buf[i] >= 0x7f) {
			snprintf(err, errlen, "%s: the token has a byte 0x%02x", api->token_file,
				 (unsigned char)buf[i]);
			return -EINVAL;
		}
	}
	if (asprintf(hdr, "Authorization: Bearer %s", buf) < 0)
		return -ENOMEM;
	return 0;
}

struct transfer {
	struct kube_api *api;
	struct json_stream js;
	CURL *c;
	long status;		/* HTTP status, once known */
	int ret;		/* the stream's or the callback's nonzero return */
	char body[512];		/* of an error response, for the message */
	size_t body_len;
	char *err;
	size_t errlen;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct transfer *t = userdata;
	size_t len = size * nmemb, n;

	if (!t->status)
		curl_easy_getinfo(t->c, CURLINFO_RESPONSE_CODE, &t->status);
	if (t->status != 200) {
		n = sizeof(t->body) - 1 - t->body_len;
		n = len < n ? len : n;
		memcpy(t->body + t->body_len, ptr, n);
		t->body_len += n;
		t->body[t->body_len] = '\0';
		return len;
	}
	t->ret = json_stream_feed(&t->js, ptr, len, t->err, t->errlen);
	return t->ret ? 0 : len;	/* 0 aborts the transfer */
}

static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct transfer *t = userdata;

	return t->api->stop && *t->api->stop;
}

/* "HTTP 403: pods is forbidden: ..." from a Status body, or its first bytes. */
static void status_error(struct transfer *t)
{
	struct json_object *o = json_tokener_parse(t->body), *m;
	char q[200];
	const char *msg = t->body;

	if (o && json_object_object_get_ex(o, "message", &m) &&
	    json_object_is_type(m, json_type_string))
		msg = json_object_get_string(m);
	snprintf(t->err, t->errlen, "HTTP %ld: %s", t->status, tsq_quote(q, sizeof(q), msg));
	json_object_put(o);
}

/* GET server+path; the body goes through fn value by value, kept as
 * keep says, and each_fn element by element of its "each" arrays. 0
 * when the response was 200 and complete; KUBE_GONE for 410; else -errno.
 */
static int get(struct kube_api *api, const char *path, const struct json_keep *keep,
	       json_value_fn fn, json_value_fn each_fn, void *ctx, char *err, size_t errlen)
{
	struct transfer t = { .api = api, .c = api->curl, .err = err, .errlen = errlen };
	struct curl_slist *hdrs = NULL, *h;
	char *url = join(api->server, path), *auth = NULL, cerr[CURL_ERROR_SIZE] = "";
	char q[CURL_ERROR_SIZE * 4 + 8];
	CURLcode rc;
	int ret;

	if (!url)
		return -ENOMEM;
	ret = auth_header(api, &auth, err, errlen);
	if (ret)
		goto out;
	ret = json_stream_init(&t.js, keep, fn, each_fn, ctx);
	if (ret)
		goto out;
	hdrs = curl_slist_append(NULL, auth);
	h = hdrs ? curl_slist_append(hdrs, "Accept: application/json") : NULL;
	if (!h) {
		ret = -ENOMEM;
		goto out;
	}
	hdrs = h;
	curl_easy_reset(t.c);
	curl_easy_setopt(t.c, CURLOPT_URL, url);
	curl_easy_setopt(t.c, CURLOPT_PROTOCOLS_STR, "https");
	/* --ca alone: libcurl also trusts its default CA path (Debian's
	 * libcurl-gnutls: /etc/ssl/certs), and a certificate any public CA
	 * signed would then get the token. Both set, the path to none.
	 */
	curl_easy_setopt(t.c, CURLOPT_CAINFO, api->ca_file);
	curl_easy_setopt(t.c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(t.c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(t.c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(t.c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(t.c, CURLOPT_USERAGENT, "tsq-kube/" TSQ_VERSION);
	curl_easy_setopt(t.c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t.c, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT);
	curl_easy_setopt(t.c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(t.c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(t.c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(t.c, CURLOPT_WRITEDATA, &t);
	curl_easy_setopt(t.c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(t.c, CURLOPT_XFERINFODATA, &t);
	curl_easy_setopt(t.c, CURLOPT_NOPROGRESS, 0L);
	/* A watch is quiet while nothing changes, up to its timeout (the
	 * server then ends it); a server silent for longer is gone.
	 */
	curl_easy_setopt(t.c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(t.c, CURLOPT_LOW_SPEED_TIME,
			 each_fn ? 30L : (long)api->watch_timeout * 2 + 30);
	if (each_fn)
		curl_easy_setopt(t.c, CURLOPT_TIMEOUT, (long)LIST_TIMEOUT);

	rc = curl_easy_perform(t.c);
	if (!t.status)
		curl_easy_getinfo(t.c, CURLINFO_RESPONSE_CODE, &t.status);
	if (t.ret) {
		ret = t.ret;	/* the callback's, or the stream's error */
	} else if (api->stop && *api->stop) {
		snprintf(err, errlen, "stopped");
		ret = -EINTR;
	} else if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s", t.status == 200 ? "connection lost" :
			 "request failed", tsq_quote(q, sizeof(q), cerr[0] ? cerr :
						     curl_easy_strerror(rc)));
		ret = -EPIPE;
	} else if (t.status == 410) {
		status_error(&t);
		ret = KUBE_GONE;
	} else if (t.status != 200) {
		status_error(&t);
		ret = t.status == 401 || t.status == 403 ? -EACCES : -EPROTO;
	} else if (json_stream_partial(&t.js)) {
		snprintf(err, errlen, "the response ended in the middle of a JSON value");
		ret = -EPIPE;
	}
out:
	json_stream_free(&t.js);
	curl_slist_free_all(hdrs);
	free(auth);
	free(url);
	return ret;
}

struct list_page {
	struct kube_api *api;
	kube_item_fn item;
	void *ctx;
	char rv[KUBE_RV_MAX], cont[4096];
	char *err;
	size_t errlen;
	size_t pages;		/* values in this response: 1 */
};

static int copy_checked(char *dst, size_t len, const char *src, const char *what,
			char *err, size_t errlen)
{
	if (strlen(src) >= len) {
		snprintf(err, errlen, "the list's %s is longer than %zu bytes", what, len - 1);
		return -EPROTO;
	}
	strcpy(dst, src);
	return 0;
}

static int on_item(struct json_object *pod, size_t bytes, void *ctx)
{
	struct list_page *lp = ctx;
	int ret = lp->item(pod, bytes, lp->ctx);

	if (ret == -E2BIG)
		snprintf(lp->err, lp->errlen, "more than %zu pods in one list: refused",
			 lp->api->max_list);
	return ret;
}

/* The page itself, once its pods went by: its metadata and "items":[]. */
static int on_page(struct json_object *page, size_t bytes, void *ctx)
{
	struct list_page *lp = ctx;
	struct json_object *items = json_get(page, "items");
	const char *rv = json_get_str(json_get(page, "metadata"), "resourceVersion");
	const char *cont = json_get_str(json_get(page, "metadata"), "continue");

	if (lp->pages++) {
		snprintf(lp->err, lp->errlen, "a list response with more than one JSON value");
		return -EPROTO;
	}
	if (!rv || !items || !json_object_is_type(items, json_type_array)) {
		snprintf(lp->err, lp->errlen, "the list response is no list "
			 "(no metadata.resourceVersion or items)");
		return -EPROTO;
	}
	return copy_checked(lp->rv, sizeof(lp->rv), rv, "resourceVersion", lp->err, lp->errlen) ?:
	       copy_checked(lp->cont, sizeof(lp->cont), cont ? cont : "", "continue token",
			    lp->err, lp->errlen);
}

int kube_api_list(struct kube_api *api, kube_item_fn item, void *ctx,
		  char *rv, size_t rvlen, char *err, size_t errlen)
{
	struct list_page lp = { .api = api, .item = item, .ctx = ctx, .err = err,
				.errlen = errlen };
	char *path = NULL, *cont = NULL;
	int ret;

	do {
		lp.pages = 0;
		if (lp.cont[0]) {
			cont = curl_easy_escape(api->curl, lp.cont, 0);
			if (!cont)
				return -ENOMEM;
		}
		ret = asprintf(&path, "/api/v1/pods?fieldSelector=%s&limit=%d%s%s",
			       api->selector, KUBE_LIST_PAGE, cont ? "&continue=" : "",
			       cont ? cont : "");
		curl_free(cont);
		cont = NULL;
		if (ret < 0)
			return -ENOMEM;
		lp.cont[0] = '\0';
		ret = get(api, path, api->keep.page, on_page, on_item, &lp, err, errlen);
		free(path);
		if (!ret && !lp.pages) {
			snprintf(err, errlen, "an empty list response");
			ret = -EPROTO;
		}
		if (ret)
			return ret;
	} while (lp.cont[0]);
	if (strlen(lp.rv) >= rvlen)
		return -ENAMETOOLONG;
	strcpy(rv, lp.rv);
	return 0;
}

struct watch {
	kube_event_fn event;
	void *ctx;
	size_t *events;
};

static int on_event(struct json_object *ev, size_t bytes, void *ctx)
{
	struct watch *w = ctx;

	(*w->events)++;
	return w->event(ev, bytes, w->ctx);
}

int kube_api_watch(struct kube_api *api, const char *rv, kube_event_fn event, void *ctx,
		   size_t *events, char *err, size_t errlen)
{
	struct watch w = { .event = event, .ctx = ctx, .events = events };
	char *path, *erv = curl_easy_escape(api->curl, rv, 0);
	int ret;

	if (!erv)
		return -ENOMEM;
	/* Between one and two timeouts, as client-go spreads its watches. */
	ret = asprintf(&path, "/api/v1/pods?fieldSelector=%s&watch=1&allowWatchBookmarks=true"
		       "&resourceVersion=%s&timeoutSeconds=%u", api->selector, erv,
		       api->watch_timeout + (unsigned int)random() % (api->watch_timeout + 1));
	curl_free(erv);
	if (ret < 0)
		return -ENOMEM;
	ret = get(api, path, api->keep.event, on_event, NULL, &w, err, errlen);
	free(path);
	return ret;
}
