/* SPDX-License-Identifier: GPL-2.0 */
/* The pods of one node from the Kubernetes API: paged lists and watches,
 * over libcurl, as a service account sees them.
 */
#ifndef __KUBE_APICLIENT_H
#define __KUBE_APICLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "jsonstream.h"

#define KUBE_SA_DIR		"/var/run/secrets/kubernetes.io/serviceaccount"
#define KUBE_LIST_PAGE		500		/* pods a list page, as client-go's pager */
/* Bytes of one pod, or one event: etcd refuses a request over 1.5 MiB
 * (--max-request-bytes), so the API server stores no bigger pod. A list
 * page has no limit: its pods are read one by one (jsonstream.c).
 */
#define KUBE_MAX_ITEM		(2 << 20)
#define KUBE_RV_MAX		128		/* bytes of a resourceVersion kept */

/* What of a pod, a watch event and a list page is read (jsonstream.h). */
struct kube_keep {
	struct json_keep ann[4], meta[6], spec[2], status[3], pod[4];
	struct json_keep event_obj[6], event[3];
	struct json_keep list_meta[3], page[3];
};

struct kube_api {
	char *server;		/* "https://10.96.0.1:443", no trailing slash */
	char *ca_file;
	char *token_file;	/* read at each request: bound tokens rotate */
	char *selector;		/* "spec.nodeName=NODE", escaped for the query */
	unsigned int watch_timeout;	/* s: the server ends a watch then */
	size_t max_list;	/* pods in one list, all pages: more is refused (item()) */
	volatile int *stop;	/* nonzero: abort any transfer */
	void *curl;
	struct kube_keep keep;
};

/*
 * The server, CA and token from the flags, or else from the pod's
 * environment ($KUBERNETES_SERVICE_HOST, $KUBERNETES_SERVICE_PORT) and
 * its service account (KUBE_SA_DIR); of each pod, the annotation key
 * given is read. Only ca_file is trusted, not the system's CA store.
 * 0, or -EINVAL with err set.
 */
int kube_api_init(struct kube_api *api, const char *server, const char *ca_file,
		  const char *token_file, const char *node, const char *annotation,
		  char *err, size_t errlen);
void kube_api_free(struct kube_api *api);

/* What a list or watch ended with, beyond 0 (done) and -errno. */
#define KUBE_GONE	1	/* 410: resourceVersion too old, list again */

/*
 * List the node's pods, page by page: item() gets every pod as it
 * arrives (as far as struct kube_keep reads it, and its size: a pod of
 * more than KUBE_MAX_ITEM bytes is the callee's to skip), then rv holds
 * the list's resourceVersion. Returns 0, KUBE_GONE if a page's continue
 * token expired (start again), item()'s nonzero return, or -errno with
 * err set; item() returns -E2BIG past api->max_list pods, and err says so.
 */
typedef int (*kube_item_fn)(struct json_object *pod, size_t bytes, void *ctx);
int kube_api_list(struct kube_api *api, kube_item_fn item, void *ctx,
		  char *rv, size_t rvlen, char *err, size_t errlen);

/*
 * Watch from rv until the server ends the watch or event() returns
 * nonzero (that value is returned). Every event object goes to event()
 * as it arrives; *events counts them. A 410 Gone status returns
 * KUBE_GONE. A stream cut in the middle of an event, or bytes that are
 * no JSON, return -EPIPE or -EBADMSG: the event is not delivered.
 */
typedef int (*kube_event_fn)(struct json_object *ev, size_t bytes, void *ctx);
int kube_api_watch(struct kube_api *api, const char *rv, kube_event_fn event, void *ctx,
		   size_t *events, char *err, size_t errlen);

#endif
