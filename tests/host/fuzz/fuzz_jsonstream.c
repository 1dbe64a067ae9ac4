// SPDX-License-Identifier: GPL-2.0
/*
 * tsq-kube's JSON scanner (user/kube/jsonstream.c) on arbitrary bytes,
 * fed in two pieces split where the first byte says: no crash, and where
 * json-c's strict parser reads values, the scanner reads them too (but
 * for a raw control byte in a string, which RFC 8259 forbids and this
 * json-c lets through) and
 * keeps of each what json-c's tree of the whole has at the kept members
 * (the last of two members of a name counting, a member of the wrong
 * type null). A list's items are compared one by one when there are as
 * many on both sides (a repeated "items" member streams both arrays).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstream.h"

#define MAX_VALUES	64

static const struct json_keep inner[] = { { .key = "e" }, {} };
static const struct json_keep sub[] = { { .key = "c" }, { .key = "d", .sub = inner }, {} };
static const struct json_keep item[] = { { .key = "x" }, { .key = "m", .sub = inner }, {} };
static const struct json_keep top[] = {
	{ .key = "a" }, { .key = "b", .sub = sub }, { .key = "items", .sub = item, .each = true },
	{}
};

struct got {
	struct json_object *v[MAX_VALUES], *items[MAX_VALUES * 4];
	int n, ni;
	bool null_seen;
};

static int on_value(struct json_object *v, size_t bytes, void *ctx)
{
	struct got *g = ctx;

	if (!v)
		g->null_seen = true;
	if (g->n < MAX_VALUES)
		g->v[g->n++] = json_object_get(v);
	return 0;
}

static int on_item(struct json_object *v, size_t bytes, void *ctx)
{
	struct got *g = ctx;

	if (!v)
		g->null_seen = true;
	if (g->ni < MAX_VALUES * 4)
		g->items[g->ni++] = json_object_get(v);
	else
		g->ni++;
	return 0;
}

/* What the scanner should keep of o, from json-c's tree. */
static struct json_object *project(struct json_object *o, const struct json_keep *keep)
{
	struct json_object *r = json_object_new_object(), *v;

	if (!json_object_is_type(o, json_type_object))
		return r;
	for (const struct json_keep *k = keep; k->key; k++) {
		if (!json_object_object_get_ex(o, k->key, &v))
			continue;
		if (k->each)
			json_object_object_add(r, k->key, json_object_is_type(v, json_type_array) ?
					       json_object_new_array() : NULL);
		else if (k->sub)
			json_object_object_add(r, k->key, json_object_is_type(v, json_type_object) ?
					       project(v, k->sub) : NULL);
		else
			json_object_object_add(r, k->key, json_object_get(v));
	}
	return r;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *ref[MAX_VALUES], *items, *want, *v;
	struct json_tokener *tok;
	struct json_stream js;
	struct got g = {};
	size_t off = 0, split;
	int nref = 0, ret;
	char err[256];

	if (!size || size > 4000)
		return 0;
	split = data[0] % size;
	data++;
	size--;
	if (json_stream_init(&js, top, on_value, on_item, &g))
		return 0;
	ret = json_stream_feed(&js, (const char *)data, split < size ? split : size, err,
			       sizeof(err));
	if (!ret && split < size)
		ret = json_stream_feed(&js, (const char *)data + split, size - split, err,
				       sizeof(err));
	if (ret && ret != -EBADMSG)
		abort();
	json_stream_free(&js);

	/* json-c: value after value, strict, as the scanner's depth. */
	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	while (nref < MAX_VALUES) {
		while (off < size && is_space(data[off]))
			off++;
		if (off == size)
			break;
		v = json_tokener_parse_ex(tok, (const char *)data + off, (int)(size - off));
		if (!v && json_tokener_get_error(tok) != json_tokener_success)
			break;
		off += json_tokener_get_parse_end(tok);
		/* A number or literal at the very end: json-c waits for more. */
		if (!v && !json_object_is_type(v, json_type_null))
			break;
		ref[nref++] = v;
		json_tokener_reset(tok);
	}
	json_tokener_free(tok);

	/* Compared where both read the same values: json-c also splits "00"
	 * as one, where the scanner reads two.
	 */
	for (int i = 0; !ret && nref == g.n && off == size && i < nref && !g.null_seen; i++) {
		want = project(ref[i], top);
		if (!json_object_equal(want, g.v[i]))
			abort();
		json_object_put(want);
	}
	/* One value with one "items" array: its elements, in order. */
	if (!ret && nref == 1 && g.n == 1 && off == size && !g.null_seen && json_object_is_type(ref[0], json_type_object) &&
	    json_object_object_get_ex(ref[0], "items", &items) &&
	    json_object_is_type(items, json_type_array) &&
	    (int)json_object_array_length(items) == g.ni) {
		for (int i = 0; i < g.ni && i < MAX_VALUES * 4; i++) {
			want = project(json_object_array_get_idx(items, i), item);
			if (!json_object_equal(want, g.items[i]))
				abort();
			json_object_put(want);
		}
	}
	for (int i = 0; i < nref; i++)
		json_object_put(ref[i]);
	for (int i = 0; i < g.n; i++)
		json_object_put(g.v[i]);
	for (int i = 0; i < g.ni && i < MAX_VALUES * 4; i++)
		json_object_put(g.items[i]);
	return 0;
}
