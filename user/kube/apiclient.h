/* SPDX-License-Identifier: GPL-2.0 */
/* The pods of one node from the Kubernetes API: paged lists and watches,
 * over libcurl, as a service account sees them.
 */
#ifndef __KUBE_APICLIENT_H
#define __KUBE_APICLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#define KUBE_SA_DIR		"/var/run/secrets/kubernetes.io/serviceaccount"
#define KUBE_LIST_PAGE		500		/* pods a list page, as client-go's pager */
#define KUBE_MAX_VALUE		(16 << 20)	/* bytes: one list page or one event */
#define KUBE_RV_MAX		128		/* bytes of a resourceVersion kept */

struct kube_api {
	char *server;		/* "https://10.96.0.1:443", no trailing slash */
	char *ca_file;
	char *token_file;	/* read at each request: bound tokens rotate */
	char *selector;		/* "spec.nodeName=NODE", escaped for the query */
	unsigned int watch_timeout;	/* s: the server ends a watch then */
	volatile int *stop;	/* nonzero: abort any transfer */
	void *curl;
};

/*
 * The server, CA and token from the flags, or else from the pod's
 * environment ($KUBERNETES_SERVICE_HOST, $KUBERNETES_SERVICE_PORT) and
 * its service account (KUBE_SA_DIR). 0, or -EINVAL with err set.
 */
int kube_api_init(struct kube_api *api, const char *server, const char *ca_file,
		  const char *token_file, const char *node, char *err, size_t errlen);
void kube_api_free(struct kube_api *api);

/* What a list or watch ended with, beyond 0 (done) and -errno. */
#define KUBE_GONE	1	/* 410: resourceVersion too old, list again */

/*
 * List the node's pods, page by page: item() gets every pod, then rv
 * holds the list's resourceVersion. Returns 0, KUBE_GONE if a page's
 * continue token expired (start again), item()'s nonzero return, or
 * -errno with err set.
 */
typedef int (*kube_item_fn)(struct json_object *pod, void *ctx);
int kube_api_list(struct kube_api *api, kube_item_fn item, void *ctx,
		  char *rv, size_t rvlen, char *err, size_t errlen);

/*
 * Watch from rv until the server ends the watch or event() returns
 * nonzero (that value is returned). Every event object goes to event()
 * as it arrives; *events counts them. A 410 Gone status returns
 * KUBE_GONE. A stream cut in the middle of an event, or bytes that are
 * no JSON, return -EPIPE or -EBADMSG: the event is not delivered.
 */
typedef int (*kube_event_fn)(struct json_object *ev, void *ctx);
int kube_api_watch(struct kube_api *api, const char *rv, kube_event_fn event, void *ctx,
		   size_t *events, char *err, size_t errlen);

#endif
