// SPDX-License-Identifier: GPL-2.0
/* JSON values from a byte stream, kept only as far as they are read.
 *
 * The API server writes a watch as one event a line, kubectl --watch
 * pretty-prints them over many lines: whitespace between values is all
 * that separates them, so the split is the scanner's, not newline's.
 *
 * A json-c tree costs far more than its text: 4 MiB of "{}" became a
 * gigabyte, 30 pods of 23k annotations 168 MB. So no tree is built of
 * what arrives. A scanner here checks the bytes are JSON and copies out
 * only the members a struct json_keep names, into a buffer of at most
 * JSON_KEEP_MAX bytes a value; json-c parses that. The elements of an
 * "each" array (a list's items) are values of their own, passed on as
 * each ends: a list page is never held whole. Memory is the stack of
 * JSON_MAX_DEPTH levels and two buffers, whatever the server sends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstream.h"

#define NUM_MAX	64	/* digits of a number kept */

enum { T_NONE, T_STR, T_ESC, T_UHEX, T_NUM, T_LIT };
/* Skipped; kept whole; only json_keep's members; an array of values of their own. */
enum { M_SKIP, M_ALL, M_KEEP, M_EACH };
/* What a container expects next (the stream's top level: always a value). */
enum { X_VALUE, X_FIRST_KEY, X_KEY, X_COLON, X_NEXT, X_FIRST_VALUE };

struct json_level {
	bool obj;
	unsigned char mode, expect;
	unsigned int kept;			/* members or elements copied out */
	const struct json_keep *keep;		/* M_KEEP: members; M_EACH: of each element */
	const struct json_keep *member;		/* M_KEEP: the member being read, if kept */
};

int json_stream_init(struct json_stream *s, const struct json_keep *keep, json_value_fn fn,
		     json_value_fn each_fn, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->keep = keep;
	s->fn = fn;
	s->each_fn = each_fn;
	s->ctx = ctx;
	s->tok = json_tokener_new_ex(JSON_MAX_DEPTH + 1);
	s->stack = calloc(JSON_MAX_DEPTH, sizeof(*s->stack));
	s->unit[0].out = malloc(JSON_KEEP_MAX + 1);
	s->unit[1].out = malloc(JSON_KEEP_MAX + 1);
	if (!s->tok || !s->stack || !s->unit[0].out || !s->unit[1].out) {
		json_stream_free(s);
		return -ENOMEM;
	}
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT);
	return 0;
}

void json_stream_free(struct json_stream *s)
{
	if (s->tok)
		json_tokener_free(s->tok);
	free(s->stack);
	free(s->unit[0].out);
	free(s->unit[1].out);
	memset(s, 0, sizeof(*s));
}

static int bad(struct json_stream *s, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "JSON value %zu: %s", s->values + 1, what);
	return -EBADMSG;
}

/* Into the innermost value being kept. */
static void emit(struct json_stream *s, const char *p, size_t n)
{
	struct json_unit *u = &s->unit[s->units - 1];

	if (u->overflow)
		return;
	if (u->len + n > JSON_KEEP_MAX) {
		u->overflow = true;
		return;
	}
	memcpy(u->out + u->len, p, n);
	u->len += n;
}

static void emit_c(struct json_stream *s, char c)
{
	emit(s, &c, 1);
}

/* A byte of a string kept: up to JSON_KEEP_STR, and then only to the end
 * of an escape or of a UTF-8 character, so that the cut string is JSON.
 */
static void emit_str(struct json_stream *s, unsigned char c)
{
	bool in_escape = s->tok_state == T_ESC || s->tok_state == T_UHEX;

	if (!s->str_emit || s->str_cut)
		return;
	if (s->str_len < JSON_KEEP_STR || in_escape ||
	    ((c & 0xc0) == 0x80 && s->str_len < JSON_KEEP_STR + 3)) {
		emit_c(s, c);
		s->str_len++;
	} else {
		s->str_cut = true;
	}
}

static void key_add(struct json_stream *s, unsigned int c)
{
	if (c >= 0x80 || !c || s->key_len >= sizeof(s->key) - 1)
		s->key_bad = true;	/* no member we keep has such a name */
	else
		s->key[s->key_len++] = c;
}

static int unit_end(struct json_stream *s)
{
	struct json_unit *u = &s->unit[--s->units];
	json_value_fn fn = s->units ? s->each_fn : s->fn;
	struct json_object *v = NULL;
	int ret = 0;

	if (!u->overflow) {
		/* A value that is no object keeps nothing: an empty object. */
		if (!u->len)
			u->len = snprintf(u->out, 3, "{}");
		u->out[u->len] = '\0';
		json_tokener_reset(s->tok);
		v = json_tokener_parse_ex(s->tok, u->out, (int)u->len);
		if (v && json_tokener_get_parse_end(s->tok) != u->len) {
			json_object_put(v);
			v = NULL;
		}
	}
	if (!s->units)
		s->values++;
	if (fn)
		ret = fn(v, u->bytes, s->ctx);
	json_object_put(v);
	return ret;
}

/* A value ended at depth s->depth: the end of one to pass on? */
static int value_end(struct json_stream *s)
{
	if (s->units && s->unit[s->units - 1].depth == s->depth)
		return unit_end(s);
	return 0;
}

/* RFC 8259's number, a state a byte: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
enum { N_START = 1, N_SIGN, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

/* The state after c, or 0 if c is no part of the number. */
static int num_next(int state, unsigned char c)
{
	bool digit = c >= '0' && c <= '9';

	switch (state) {
	case N_START:
		return c == '-' ? N_SIGN : c == '0' ? N_ZERO : digit ? N_INT : 0;
	case N_SIGN:
		return c == '0' ? N_ZERO : digit ? N_INT : 0;
	case N_ZERO:
		return c == '.' ? N_DOT : c == 'e' || c == 'E' ? N_E : 0;
	case N_INT:
		return digit ? N_INT : c == '.' ? N_DOT : c == 'e' || c == 'E' ? N_E : 0;
	case N_FRAC:
		return digit ? N_FRAC : c == 'e' || c == 'E' ? N_E : 0;
	case N_DOT:
		return digit ? N_FRAC : 0;
	case N_E:
		return c == '+' || c == '-' ? N_ESIGN : digit ? N_EXP : 0;
	case N_ESIGN:
	case N_EXP:
		return digit ? N_EXP : 0;
	}
	return 0;
}

static bool num_done(int state)
{
	return state == N_ZERO || state == N_INT || state == N_FRAC || state == N_EXP;
}

static void member_name(struct json_stream *s, struct json_level *p)
{
	if (p->kept++)
		emit_c(s, ',');
	emit_c(s, '"');
	emit(s, p->member->key, strlen(p->member->key));
	emit(s, "\":", 2);
}

static int value_begin(struct json_stream *s, unsigned char c, char *err, size_t errlen)
{
	struct json_level *p = s->depth ? &s->stack[s->depth - 1] : NULL, *l;
	const struct json_keep *keep = NULL, *m;
	int mode = M_SKIP;
	bool unit = false;

	if (!p) {
		unit = true;
		keep = s->keep;
	} else {
		p->expect = X_NEXT;
		if (p->mode == M_ALL) {
			mode = M_ALL;
		} else if (p->mode == M_EACH && s->units < 2) {
			unit = true;
			keep = p->keep;
		} else if (p->mode == M_KEEP && (m = p->member)) {
			if (m->each)
				mode = c == '[' ? M_EACH : M_SKIP;
			else if (m->sub)
				mode = c == '{' ? M_KEEP : M_SKIP;
			else
				mode = M_ALL;
			keep = m->sub;
			member_name(s, p);
			/* Of the wrong type, it is null: the last of two members
			 * of a name counts, as in json-c's tree of the whole.
			 */
			if (mode == M_SKIP)
				emit(s, "null", 4);
		}
	}
	if (unit) {
		struct json_unit *u = &s->unit[s->units++];

		u->len = u->bytes = 0;
		u->overflow = false;
		u->depth = s->depth;
		mode = c == '{' ? M_KEEP : M_SKIP;
	}

	switch (c) {
	case '{':
	case '[':
		if (s->depth == JSON_MAX_DEPTH)
			return bad(s, "nested deeper than JSON_MAX_DEPTH (64)", err, errlen);
		l = &s->stack[s->depth++];
		l->obj = c == '{';
		l->mode = mode;
		l->expect = l->obj ? X_FIRST_KEY : X_FIRST_VALUE;
		l->kept = 0;
		l->keep = keep;
		l->member = NULL;
		if (mode != M_SKIP)
			emit_c(s, c);
		return 0;
	case '"':
		s->tok_state = T_STR;
		s->str_key = false;
		s->str_emit = mode == M_ALL;
		s->str_cut = false;
		s->str_len = 0;
		if (s->str_emit)
			emit_c(s, '"');
		return 0;
	case 't':
	case 'f':
	case 'n':
		s->lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
		s->lit_pos = 1;
		s->tok_state = T_LIT;
		s->str_emit = mode == M_ALL;
		if (s->str_emit)
			emit_c(s, c);
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		s->tok_state = T_NUM;
		s->lit_pos = num_next(N_START, c);
		s->str_emit = mode == M_ALL;
		s->str_len = 1;
		if (s->str_emit)
			emit_c(s, c);
		return 0;
	}
	return bad(s, "not a value", err, errlen);
}

static int close_level(struct json_stream *s, unsigned char c, char *err, size_t errlen)
{
	struct json_level *l = &s->stack[s->depth - 1];

	if (l->obj != (c == '}'))
		return bad(s, "a bracket that closes nothing open", err, errlen);
	if (l->mode != M_SKIP)
		emit_c(s, c);
	s->depth--;
	return value_end(s);
}

static int str_end(struct json_stream *s)
{
	struct json_level *l;

	s->tok_state = T_NONE;
	if (s->str_emit)
		emit_c(s, '"');
	if (!s->str_key)
		return value_end(s);
	l = &s->stack[s->depth - 1];	/* a name: inside an object */
	if (l->mode == M_KEEP && !s->key_bad) {
		s->key[s->key_len] = '\0';
		for (const struct json_keep *k = l->keep; k && k->key; k++)
			if (!strcmp(k->key, s->key))
				l->member = k;
	}
	return 0;
}

static int hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A byte inside a string, a number or a literal; *again: c ended a
 * number and is to be read again.
 */
static int token_byte(struct json_stream *s, unsigned char c, bool *again, char *err,
		      size_t errlen)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *e = NULL;
	int next;

	switch (s->tok_state) {
	case T_STR:
		if (c == '"')
			return str_end(s);
		if (c < 0x20)
			return bad(s, "a control character in a string", err, errlen);
		if (c == '\\') {
			emit_str(s, c);
			s->tok_state = T_ESC;
			return 0;
		}
		if (s->str_key)
			key_add(s, c);
		emit_str(s, c);
		return 0;
	case T_ESC:
		if (c != 'u' && !(c && (e = strchr(esc_in, c))))
			return bad(s, "an unknown escape in a string", err, errlen);
		emit_str(s, c);
		if (c == 'u') {
			s->tok_state = T_UHEX;
			s->uhex = 0;
			s->lit_pos = 0;
		} else {
			if (s->str_key)
				key_add(s, (unsigned char)esc_out[e - esc_in]);
			s->tok_state = T_STR;
		}
		return 0;
	case T_UHEX:
		if (hex(c) < 0)
			return bad(s, "a \\u escape without 4 hex digits", err, errlen);
		s->uhex = s->uhex << 4 | hex(c);
		emit_str(s, c);
		if (++s->lit_pos == 4) {
			if (s->str_key)
				key_add(s, s->uhex);
			s->tok_state = T_STR;
		}
		return 0;
	case T_LIT:
		if (c != (unsigned char)s->lit[s->lit_pos])
			return bad(s, "not a value", err, errlen);
		if (s->str_emit)
			emit_c(s, c);
		if (!s->lit[++s->lit_pos]) {
			s->tok_state = T_NONE;
			return value_end(s);
		}
		return 0;
	case T_NUM:
		next = num_next(s->lit_pos, c);
		if (next > 0) {
			s->lit_pos = next;
			if (s->str_emit && ++s->str_len > NUM_MAX)
				s->unit[s->units - 1].overflow = true;
			else if (s->str_emit)
				emit_c(s, c);
			return 0;
		}
		if (!num_done(s->lit_pos))
			return bad(s, "a number cut short", err, errlen);
		s->tok_state = T_NONE;
		*again = true;
		return value_end(s);
	}
	return 0;
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int step(struct json_stream *s, unsigned char c, char *err, size_t errlen)
{
	struct json_level *l;
	bool again = false;
	int ret;

	if (s->tok_state != T_NONE) {
		ret = token_byte(s, c, &again, err, errlen);
		if (ret || !again)
			return ret;
	}
	if (is_space(c))
		return 0;
	if (!s->depth)
		return value_begin(s, c, err, errlen);
	l = &s->stack[s->depth - 1];
	switch (l->expect) {
	case X_FIRST_KEY:
		if (c == '}')
			return close_level(s, c, err, errlen);
		/* fall through */
	case X_KEY:
		if (c != '"')
			return bad(s, "a member without a name", err, errlen);
		l->expect = X_COLON;
		l->member = NULL;
		s->tok_state = T_STR;
		s->str_key = true;
		s->str_emit = l->mode == M_ALL;
		s->str_cut = false;
		s->str_len = 0;
		s->key_len = 0;
		s->key_bad = false;
		if (s->str_emit)
			emit_c(s, '"');
		return 0;
	case X_COLON:
		if (c != ':')
			return bad(s, "a name without ':'", err, errlen);
		if (l->mode == M_ALL)
			emit_c(s, ':');
		l->expect = X_VALUE;
		return 0;
	case X_NEXT:
		if (c == '}' || c == ']')
			return close_level(s, c, err, errlen);
		if (c != ',')
			return bad(s, "no ',' between values", err, errlen);
		if (l->mode == M_ALL)
			emit_c(s, ',');
		l->expect = l->obj ? X_KEY : X_VALUE;
		return 0;
	case X_FIRST_VALUE:
		if (c == ']')
			return close_level(s, c, err, errlen);
		/* fall through */
	default:
		return value_begin(s, c, err, errlen);
	}
}

int json_stream_feed(struct json_stream *s, const char *buf, size_t len,
		     char *err, size_t errlen)
{
	int ret;

	for (size_t i = 0; i < len; i++) {
		for (int u = 0; u < s->units; u++)
			s->unit[u].bytes++;
		ret = step(s, (unsigned char)buf[i], err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int json_stream_partial(const struct json_stream *s)
{
	return s->depth || s->units || s->tok_state != T_NONE;
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
