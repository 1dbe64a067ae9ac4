// SPDX-License-Identifier: GPL-2.0
/* Split a byte stream into JSON values with json-c's incremental tokener.
 *
 * The API server writes a watch as one event a line, kubectl --watch
 * pretty-prints them over many lines: whitespace between values is all
 * that separates them, so the split is the tokener's, not newline's.
 */
#include <errno.h>
#include <stdio.h>

#include "jsonstream.h"

/* Pod objects nest 10-15 levels (managedFields); more is not a pod. */
#define JSON_MAX_DEPTH	64

int json_stream_init(struct json_stream *s, size_t max_value, json_value_fn fn, void *ctx)
{
	s->tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!s->tok)
		return -ENOMEM;
	/* Strict JSON; without the second flag a strict tokener takes the
	 * start of the next event for trailing garbage.
	 */
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	s->in_value = 0;
	s->max_value = max_value;
	s->values = 0;
	s->fn = fn;
	s->ctx = ctx;
	return 0;
}

void json_stream_free(struct json_stream *s)
{
	if (s->tok)
		json_tokener_free(s->tok);
	s->tok = NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int json_stream_feed(struct json_stream *s, const char *buf, size_t len,
		     char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		struct json_object *v;
		enum json_tokener_error e;
		size_t used, chunk;
		int ret;

		/* Whitespace between values is not a value begun. */
		if (!s->in_value) {
			while (off < len && is_space(buf[off]))
				off++;
			if (off == len)
				break;
		}
		chunk = len - off;
		if (chunk > s->max_value - s->in_value + 1)
			chunk = s->max_value - s->in_value + 1;
		/* json-c takes an int length. */
		if (chunk > 1 << 30)
			chunk = 1 << 30;
		v = json_tokener_parse_ex(s->tok, buf + off, (int)chunk);
		e = json_tokener_get_error(s->tok);
		used = v ? json_tokener_get_parse_end(s->tok) : chunk;
		s->in_value += used;
		off += used;
		if (!v && e == json_tokener_continue) {
			if (s->in_value > s->max_value) {
				snprintf(err, errlen, "a JSON value longer than %zu bytes",
					 s->max_value);
				return -EMSGSIZE;
			}
			continue;
		}
		if (!v) {
			snprintf(err, errlen, "JSON value %zu: %s", s->values + 1,
				 json_tokener_error_desc(e));
			return -EBADMSG;
		}
		json_tokener_reset(s->tok);
		s->in_value = 0;
		s->values++;
		ret = s->fn(v, s->ctx);
		json_object_put(v);
		if (ret)
			return ret;
	}
	return 0;
}

int json_stream_partial(const struct json_stream *s)
{
	return s->in_value != 0;
}

struct json_object *json_get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *json_get_str(struct json_object *o, const char *key)
{
	struct json_object *v = json_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}
