/* SPDX-License-Identifier: GPL-2.0 */
/* JSON values one after another in a byte stream: a watch's events, or
 * the one object of a list response, fed as the bytes arrive, and cut
 * down to the members the agent reads before json-c builds a tree.
 */
#ifndef __KUBE_JSONSTREAM_H
#define __KUBE_JSONSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/*
 * What of an object is kept, one entry a member, ended by an entry with
 * key NULL. sub NULL: the member's value whole (a string longer than
 * JSON_KEEP_STR bytes is cut there: longer than any field read); sub
 * set: only those members of it, if it is an object; each: it is an
 * array whose elements are values of their own (a list's items), each
 * kept as sub says and passed to the stream's each_fn as it ends. A
 * member with sub or each whose value has another type is kept as null.
 */
struct json_keep {
	const char *key;
	const struct json_keep *sub;
	bool each;
};

#define JSON_KEEP_STR	4096		/* bytes of a string kept */
#define JSON_KEEP_MAX	(64 << 10)	/* bytes kept of one value */
#define JSON_MAX_DEPTH	64		/* pods nest 10-15 levels (managedFields) */

/*
 * Called with each complete value, as far as it is kept, and the bytes
 * it took in the stream (a caller's size limit: the callback skips a
 * value over it, and may still read what names it); the stream keeps
 * ownership of v. A value that is no object is kept as {}. v is NULL if
 * what is kept of it did not fit JSON_KEEP_MAX (only a hostile server
 * repeats a member that often). A return other than 0 stops the stream
 * and is what json_stream_feed() returns.
 */
typedef int (*json_value_fn)(struct json_object *v, size_t bytes, void *ctx);

struct json_level;

struct json_stream {
	const struct json_keep *keep;	/* of each top-level value */
	json_value_fn fn, each_fn;
	void *ctx;
	size_t values;			/* top-level values completed */
	struct json_tokener *tok;	/* parses what is kept */
	struct json_level *stack;	/* JSON_MAX_DEPTH levels */
	int depth;
	/* The value being kept: [0] a top-level one, [1] an element of an
	 * "each" array in it.
	 */
	struct json_unit {
		char *out;		/* JSON_KEEP_MAX + 1 */
		size_t len, bytes;
		int depth;		/* of its container, -1 for a scalar */
		bool overflow;
	} unit[2];
	int units;			/* open */
	/* The token being read. */
	int tok_state, lit_pos;
	const char *lit;
	size_t str_len;
	bool str_key, str_emit, str_cut, key_bad;
	unsigned int uhex;
	char key[320];
	size_t key_len;
};

/* keep: what of each top-level value goes to fn; each_fn gets the
 * elements of its "each" arrays. 0 or -ENOMEM.
 */
int json_stream_init(struct json_stream *s, const struct json_keep *keep, json_value_fn fn,
		     json_value_fn each_fn, void *ctx);
void json_stream_free(struct json_stream *s);

/*
 * Parse len more bytes. Returns 0, fn's return value if it stopped the
 * stream, or -EBADMSG for bytes that are no JSON or nest deeper than
 * JSON_MAX_DEPTH (err says where). After an error the stream must not be
 * fed again: the bytes after a broken value cannot be trusted.
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
