/* SPDX-License-Identifier: GPL-2.0 */
/* The statistics endpoint: GET /metrics (Prometheus), GET /stats.json. */
#ifndef __TSQD_HTTP_H
#define __TSQD_HTTP_H

#include <stdio.h>

#define TSQD_LISTEN_DEFAULT	"127.0.0.1:9731"

/* Listen on "ADDR:PORT" ("[::1]:PORT" for IPv6). Returns the fd or -errno;
 * err says why in one line.
 */
int http_listen(const char *spec, char *err, size_t errlen);

/* Writes the body for a path; returns the content type, NULL for 404. */
typedef const char *(*http_handler)(const char *path, FILE *body, void *ctx);

/* One ready connection on the listening fd: read one request, answer it,
 * close. Slow clients get 1 s for each.
 */
void http_serve_one(int lfd, http_handler h, void *ctx);

#endif
