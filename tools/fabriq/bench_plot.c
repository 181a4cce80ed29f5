// SPDX-License-Identifier: GPL-2.0
/*
 * bench_plot.c - `fabriq bench --plot FILE`: the bandwidth columns of the
 * table (algbw and busbw, out of place and in place, GB/s as the table
 * prints them) against the size, one line per column and series (type and
 * op), drawn by gnuplot (Debian: gnuplot-nox) into FILE.png or FILE.svg.
 * The rows are kept as the table is printed and drawn at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fabriq.h"
#include "bench_plot.h"

#define PLOT_SERIES_LEN	32

struct plot_row {
	char series[PLOT_SERIES_LEN];
	size_t bytes;
	double algbw[2], busbw[2];
};

struct bench_plot {
	char *file, *title;
	struct plot_row *rows;
	size_t n, cap;
};

static const char *plot_ext(const char *file)
{
	const char *dot = strrchr(file, '.');

	return dot && dot != file ? dot + 1 : "";
}

int bench_plot_file_ok(const char *file)
{
	return !strcmp(plot_ext(file), "png") || !strcmp(plot_ext(file), "svg");
}

struct bench_plot *bench_plot_new(const char *file, const char *title)
{
	struct bench_plot *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->file = strdup(file);
	p->title = strdup(title);
	if (!p->file || !p->title) {
		free(p->file);
		free(p->title);
		free(p);
		return NULL;
	}
	return p;
}

void bench_plot_row(struct bench_plot *p, const char *series, size_t bytes,
		    const double algbw[2], const double busbw[2])
{
	struct plot_row *r;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;

		r = realloc(p->rows, cap * sizeof(*r));
		if (!r)
			return;	/* bench_plot_write() draws what it has */
		p->rows = r;
		p->cap = cap;
	}
	r = &p->rows[p->n++];
	snprintf(r->series, sizeof(r->series), "%s", series);
	r->bytes = bytes;
	memcpy(r->algbw, algbw, sizeof(r->algbw));
	memcpy(r->busbw, busbw, sizeof(r->busbw));
}

/* gnuplot's single-quoted string: a quote is doubled */
static void plot_quoted(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		fputc(*s, g);
	}
	fputc('\'', g);
}

static void plot_script(FILE *g, const struct bench_plot *p)
{
	static const char *const col[] = { "busbw out of place", "busbw in place",
					   "algbw out of place", "algbw in place" };
	size_t i, nseries = 0;
	int c;

	/* one data block per series (the rows of a series follow each other) */
	fprintf(g, "$table << EOD\n");
	for (i = 0; i < p->n; i++) {
		if (i && strcmp(p->rows[i].series, p->rows[i - 1].series))
			fprintf(g, "\n\n");
		fprintf(g, "%zu %.6f %.6f %.6f %.6f\n", p->rows[i].bytes, p->rows[i].busbw[0],
			p->rows[i].busbw[1], p->rows[i].algbw[0], p->rows[i].algbw[1]);
	}
	fprintf(g, "EOD\n");
	if (!strcmp(plot_ext(p->file), "png"))
		fprintf(g, "set terminal pngcairo size 960,600 noenhanced\n");
	else
		fprintf(g, "set terminal svg size 960,600 dynamic noenhanced\n");
	fprintf(g, "set output ");
	plot_quoted(g, p->file);
	fprintf(g, "\nset title ");
	plot_quoted(g, p->title);
	fprintf(g, "\nset logscale x 2\nset format x '%%.0b%%BB'\nset xlabel 'size (bytes)'\n"
		"set ylabel 'GB/s'\nset yrange [0:*]\nset grid\nset key left top\nplot ");
	for (i = 0; i < p->n; i++) {
		if (i && !strcmp(p->rows[i].series, p->rows[i - 1].series))
			continue;
		for (c = 0; c < 4; c++) {
			char title[PLOT_SERIES_LEN + 32];

			snprintf(title, sizeof(title), "%s %s", p->rows[i].series, col[c]);
			fprintf(g, "%s$table index %zu using 1:%d with linespoints title ",
				nseries || c ? ", " : "", nseries, c + 2);
			plot_quoted(g, title);
		}
		nseries++;
	}
	fprintf(g, "\n");
}

int bench_plot_write(struct bench_plot *p)
{
	FILE *g;
	int st, err = 0;

	if (!p->n) {
		fprintf(stderr, "%s: bench: --plot: no rows to draw\n", prog);
		err = -1;
		goto out;
	}
	/* gnuplot's own complaints go to our stderr; its exit status tells */
	g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "%s: bench: --plot: cannot run gnuplot: %s\n", prog, strerror(errno));
		err = -1;
		goto out;
	}
	plot_script(g, p);
	st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: bench: --plot: gnuplot failed (exit %d%s); '%s' not drawn\n",
			prog, st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st),
			WIFEXITED(st) && WEXITSTATUS(st) == 127 ?
			", not installed: Debian package gnuplot-nox" : "", p->file);
		err = -1;
	}
out:
	bench_plot_free(p);
	return err;
}

void bench_plot_free(struct bench_plot *p)
{
	free(p->rows);
	free(p->file);
	free(p->title);
	free(p);
}
