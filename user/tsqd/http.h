/* SPDX-License-Identifier: GPL-2.0 */
/* The statistics endpoint: GET /metrics (Prometheus), GET /stats.json;
 * GET /healthz answers "ok" without calling the handler.
 */
#ifndef __TSQD_HTTP_H
#define __TSQD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TSQD_LISTEN_DEFAULT	"127.0.0.1:9731"
#define HTTP_MAX_CONNS		32	/* open connections; a new one closes the oldest */
#define HTTP_DEADLINE_MS	2000	/* whole request, from accept to the last byte */

/* Writes the body for a path; returns the content type, NULL for 404. */
typedef const char *(*http_handler)(const char *path, FILE *body, void *ctx);

struct http_server;

/*
 * Listen on "ADDR:PORT" ("[::1]:PORT" for IPv6) and serve GET requests
 * with h. Returns NULL with err set (and *errp = -errno, -EINVAL for a
 * bad spec) on failure.
 */
struct http_server *http_open(const char *spec, http_handler h, void *ctx,
			      int *errp, char *err, size_t errlen);
void http_close(struct http_server *srv);

/*
 * From now on answer only requests with "Authorization: Bearer " and
 * these len bytes (copied); every other gets 401 and the handler is not
 * called. NULL: no check. 0, or -ENOMEM (the old token stays).
 */
int http_set_token(struct http_server *srv, const char *token, size_t len);

/* Whether it listens on a loopback address (127.0.0.0/8, ::1) only. */
bool http_loopback(const struct http_server *srv);

/*
 * One fd for the caller's event loop: readable whenever http_process()
 * has work (a connection, request bytes, room to write, a deadline).
 */
int http_fd(const struct http_server *srv);

/*
 * Everything that is ready, without blocking. No connection lives past
 * HTTP_DEADLINE_MS, however slowly its client sends or reads.
 */
void http_process(struct http_server *srv);

#endif
