// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - one writer for text and JSON output.
 *
 * Callers describe each value once (key, text format, value); in text mode
 * the text format is printed, in JSON mode "key": value with snake_case keys.
 * A top-level JSON array wraps every command's records so that `-j` output
 * is always a single valid document; `monitor -j` prints one object per line.
 * The shapes more than one object prints are here too: ids in hex, a value
 * labelled with its own key, the end of a record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabriq.h"

#define MAX_DEPTH 16

static enum out_mode mode;
static int depth;
static bool need_comma[MAX_DEPTH];

void out_init(enum out_mode m)
{
	mode = m;
	depth = 0;
}

bool out_is_json(void)
{
	return mode != OUT_TEXT;
}

static void json_indent(void)
{
	int i;

	if (mode != OUT_JSON_PRETTY)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("    ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Separator and key before a value at the current depth. */
static void json_key(const char *key)
{
	if (need_comma[depth])
		putchar(',');
	need_comma[depth] = true;
	if (depth > 0)
		json_indent();
	if (key) {
		json_string(key);
		fputs(mode == OUT_JSON_PRETTY ? ": " : ":", stdout);
	}
}

static void json_open(const char *key, char c)
{
	json_key(key);
	putchar(c);
	if (depth < MAX_DEPTH - 1)
		depth++;
	need_comma[depth] = false;
}

static void json_close(char c)
{
	bool had = need_comma[depth];

	if (depth > 0)
		depth--;
	if (had)
		json_indent();
	putchar(c);
	if (depth == 0) {
		putchar('\n');
		need_comma[0] = false;
	}
}

void out_begin_array(const char *key)
{
	if (out_is_json())
		json_open(key, '[');
}

void out_end_array(void)
{
	if (out_is_json())
		json_close(']');
}

void out_begin_object(const char *key)
{
	if (out_is_json())
		json_open(key, '{');
}

void out_end_object(void)
{
	if (out_is_json())
		json_close('}');
}

void out_str(const char *key, const char *text_fmt, const char *val)
{
	if (out_is_json()) {
		json_key(key);
		json_string(val);
	} else if (text_fmt) {
		printf(text_fmt, val);
	}
}

void out_uint(const char *key, const char *text_fmt, uint64_t val)
{
	if (out_is_json()) {
		json_key(key);
		printf("%llu", (unsigned long long)val);
	} else if (text_fmt) {
		printf(text_fmt, (unsigned long long)val);
	}
}

void out_double(const char *key, const char *text_fmt, double val)
{
	if (out_is_json()) {
		json_key(key);
		printf("%.6g", val);
	} else if (text_fmt) {
		printf(text_fmt, val);
	}
}

void out_int(const char *key, const char *text_fmt, long long val)
{
	if (out_is_json()) {
		json_key(key);
		printf("%lld", val);
	} else if (text_fmt) {
		printf(text_fmt, val);
	}
}

/* An id: "0x..." in text and as a JSON string. */
void out_hex(const char *key, const char *text_fmt, uint64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)val);
	out_str(key, text_fmt, buf);
}

/* A value whose text label is its key: "KEY VAL@unit " in text. */
void out_uint_unit(const char *key, const char *unit, uint64_t val)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%llu%s ", key, unit);
	out_uint(key, fmt, val);
}

void out_bool(const char *key, const char *text_true, bool val)
{
	if (out_is_json()) {
		json_key(key);
		fputs(val ? "true" : "false", stdout);
	} else if (val && text_true) {
		fputs(text_true, stdout);
	}
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (out_is_json())
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* End of one record: monitors want each one on the terminal right away. */
void out_flush_record(void)
{
	fflush(stdout);
}

/* The end of a record that out_begin_object(NULL) began: its line, flushed. */
void out_end_record(void)
{
	out_end_object();
	out_text("\n");
	out_flush_record();
}
