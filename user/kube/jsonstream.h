/* SPDX-License-Identifier: GPL-2.0 */
/* JSON values one after another in a byte stream: a watch's events, or
 * the one object of a list response, fed as the bytes arrive.
 */
#ifndef __KUBE_JSONSTREAM_H
#define __KUBE_JSONSTREAM_H

#include <stddef.h>
#include <json-c/json.h>

/* Called with each complete value; the stream keeps ownership. A return
 * other than 0 stops the stream and is what json_stream_feed() returns.
 */
typedef int (*json_value_fn)(struct json_object *v, void *ctx);

struct json_stream {
	struct json_tokener *tok;
	size_t in_value;	/* bytes of the value being parsed */
	size_t max_value;	/* more is an error: a hostile or broken server */
	size_t values;		/* complete values so far */
	json_value_fn fn;
	void *ctx;
};

int json_stream_init(struct json_stream *s, size_t max_value, json_value_fn fn, void *ctx);
void json_stream_free(struct json_stream *s);

/*
 * Parse len more bytes. Returns 0, fn's return value if it stopped the
 * stream, -EBADMSG for bytes that are no JSON (err says where) or
 * -EMSGSIZE for a value past max_value. After an error the stream must
 * not be fed again: the bytes after a broken value cannot be trusted.
 */
int json_stream_feed(struct json_stream *s, const char *buf, size_t len,
		     char *err, size_t errlen);

/* True if a value was begun but not completed (a cut stream). */
int json_stream_partial(const struct json_stream *s);

/* o's member key (NULL if o is NULL, no object or has none), and the same
 * if it is a string: what the API sends is checked, never assumed.
 */
struct json_object *json_get(struct json_object *o, const char *key);
const char *json_get_str(struct json_object *o, const char *key);

#endif
