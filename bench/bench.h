/*
** bench.h -- what every benchmark program shares: clocks, resource usage,
** argument parsing, a counting allocator, and the one output format.
**
** A benchmark prints its figures on stdout, one per line:
**
**     metric_name value unit
**
** and lines starting with '#' are comments (the sizes it ran with). The
** runner (runner.c) reads exactly that, and so does the Python twin of each
** program. Every program takes its size as argv[1], so that CTest can run it
** tiny and the runner full size; it runs on the clock TAAL_CLOCK selects,
** which the runner unsets: real time.
**
** Include this after defining _POSIX_C_SOURCE (clock_gettime, getrusage).
*/
#ifndef TAAL_BENCH_H
#define TAAL_BENCH_H

#include "taal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* The monotonic clock, in nanoseconds. */
static inline int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time this process has used so far (user + system), in seconds. */
static inline double bench_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The peak resident set size of this process so far, in bytes (Linux
 * reports ru_maxrss in kilobytes). */
static inline double bench_maxrss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0;
}

/* Prints one figure in the format the runner reads. */
static inline void bench_metric(const char *name, double value, const char *unit)
{
    printf("%s %.6g %s\n", name, value, unit);
}

/* argv[index] as a count in [min, max], or `fallback` if it is absent.
 * Exits with a message on anything else. */
static inline long bench_arg(int argc, char **argv, int index, long fallback, long min,
                             long max)
{
    if (index >= argc)
        return fallback;
    char *end;
    errno = 0;
    long value = strtol(argv[index], &end, 10);
    if (errno != 0 || end == argv[index] || *end != '\0' || value < min || value > max) {
        fprintf(stderr,
                "%s: argument %d must be a whole number in [%ld, %ld], not '%s'\n",
                argv[0], index, min, max, argv[index]);
        exit(2);
    }
    return value;
}

/* argv[index] as seconds in [0, max], or `fallback` if it is absent. */
static inline double bench_arg_seconds(int argc, char **argv, int index, double fallback,
                                       double max)
{
    if (index >= argc)
        return fallback;
    char *end;
    errno = 0;
    double value = strtod(argv[index], &end);
    if (errno != 0 || end == argv[index] || *end != '\0' || !(value >= 0) ||
        value > max) {
        fprintf(stderr, "%s: argument %d must be seconds in [0, %g], not '%s'\n", argv[0],
                index, max, argv[index]);
        exit(2);
    }
    return value;
}

static inline int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of `count` values (sorts them in place). */
static inline double bench_median(double *values, size_t count)
{
    if (count == 0)
        return 0;
    qsort(values, count, sizeof *values, bench_compare_doubles);
    return count % 2 ? values[count / 2]
                     : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* ---- a counting allocator ------------------------------------------------- */

/* Installed with taal_set_allocator(), it counts what the runtime asks for:
 * the difference of two readings is the allocations in between. */
static long bench_allocs;

static inline void *bench_counting_malloc(size_t size)
{
    bench_allocs++;
    return malloc(size);
}

static inline void *bench_counting_realloc(void *ptr, size_t size)
{
    bench_allocs++;
    return realloc(ptr, size);
}

static inline void bench_install_counting_allocator(void)
{
    static const taal_allocator counting = {bench_counting_malloc, bench_counting_realloc,
                                            free};
    taal_set_allocator(&counting);
}

/* The sleeper of the timers and idle scenarios: a task that sleeps `delay`
 * seconds; the last one to wake completes *bench_all_done, which the main
 * task awaits. Set bench_sleepers_left and bench_all_done before the first
 * one runs. */
typedef struct bench_sleeper {
    taal_coro co;
    double delay;
} bench_sleeper;

static long bench_sleepers_left;    /* sleepers not done yet */
static taal_future *bench_all_done; /* completed by the last one */

static inline int bench_sleeper_body(taal_coro *self)
{
    bench_sleeper *f = (bench_sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->delay);
    if (--bench_sleepers_left == 0)
        taal_future_set_result(bench_all_done, NULL);
    TAAL_END();
}

/* Prepares `all_done` (a plain future in the caller's frame) to be completed
 * by the last of `n` sleepers. */
static inline void bench_sleepers_begin(taal_future *all_done, long n)
{
    taal_future_init(all_done, taal_running_loop());
    bench_all_done = all_done;
    bench_sleepers_left = n;
}

/* Starts one sleeper, fire and forget: the loop frees it when it is done. */
static inline int bench_start_sleeper(double delay)
{
    taal_task *task;
    int rc = taal_task_create(taal_running_loop(), bench_sleeper_body, NULL,
                              sizeof(bench_sleeper), NULL, &task);
    if (rc == TAAL_OK) {
        ((bench_sleeper *)taal_task_frame(task))->delay = delay;
        taal_task_release(task);
    }
    return rc;
}

/* Runs `body` as the main task with taal_run() (asyncio.run()): a fresh
 * loop on the clock TAAL_CLOCK selects, the frame copied from `frame`.
 * Returns a process exit status. */
static inline int bench_main(const char *program, taal_body_fn body, const void *frame,
                             size_t frame_size)
{
    int rc = taal_run(body, frame, frame_size, NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "%s: %s\n", program, taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}

#endif /* TAAL_BENCH_H */
