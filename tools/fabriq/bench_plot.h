/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_plot.h - `fabriq bench --plot FILE`: the table's bandwidth columns
 * drawn with gnuplot (bench_plot.c).
 */
#ifndef FABRIQ_CLI_BENCH_PLOT_H
#define FABRIQ_CLI_BENCH_PLOT_H

#include <stddef.h>

struct bench_plot;

/* Is @file one --plot can write (FILE.png or FILE.svg)? */
int bench_plot_file_ok(const char *file);
/* A plot into @file, titled @title; NULL when out of memory. */
struct bench_plot *bench_plot_new(const char *file, const char *title);
/*
 * One row of the table: @series names its type and op ("float sum"),
 * @bytes its size, algbw and busbw in GB/s out of place [0] and in place [1].
 */
void bench_plot_row(struct bench_plot *p, const char *series, size_t bytes,
		    const double algbw[2], const double busbw[2]);
/* Draw it with gnuplot and free it.  Return: 0, or -1 with the error printed. */
int bench_plot_write(struct bench_plot *p);
/* Free it, drawing nothing. */
void bench_plot_free(struct bench_plot *p);

#endif
