/*
** io_support.h -- what chapter 07's test files share: loops on the virtual
** clock whose reports are kept, a count of open descriptors (nothing may
** stay open), socket pairs, and running a task to its end.
*/
#ifndef TAAL_IO_SUPPORT_H
#define TAAL_IO_SUPPORT_H

#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_check.h"

#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>

/* The reports of the loop under test, one line each. */
static char reports[4096];

static inline void keep_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    size_t used = strlen(reports);
    snprintf(reports + used, sizeof reports - used, "%s\n", report->message);
}

/* A loop on the virtual clock that reports into `reports`, polling for I/O
 * every `interval` iterations while busy (0: the default). */
static inline int open_loop_every(taal_loop *loop, unsigned interval)
{
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = keep_report, .io_interval = interval};
    reports[0] = '\0';
    return taal_loop_init(loop, &options);
}

static inline int open_loop(taal_loop *loop)
{
    return open_loop_every(loop, 0);
}

/* Tasks, gathers and waits the loop still holds, and streams and servers. */
static inline int live_objects(const taal_loop *loop)
{
    int n = 0;
    for (const taal_link *l = loop->objects.next; l != &loop->objects; l = l->next)
        n++;
    for (const taal_link *l = loop->sockets.next; l != &loop->sockets; l = l->next)
        n++;
    return n;
}

/* The descriptors this process has open, counted in /proc/self/fd (or
 * /dev/fd): a test counts before and after, and nothing may stay open. */
static inline int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        d = opendir("/dev/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* A connected pair of non-blocking stream sockets. */
static inline bool socket_pair(int fds[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return false;
    return taal_set_nonblocking(fds[0]) == TAAL_OK &&
           taal_set_nonblocking(fds[1]) == TAAL_OK;
}

/* Runs the loop until `task` is done and releases it; its status. */
static inline int finish_task(taal_loop *loop, taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    int rc = taal_run_until_complete(loop, taal_task_future(task));
    taal_task_release(task);
    return rc;
}

/* Runs `body` with `frame` as a task to its end: its status. */
static inline int run_task(taal_loop *loop, taal_body_fn body, const void *frame,
                           size_t size)
{
    taal_task *task = NULL;
    int rc = taal_task_create(loop, body, frame, size, "test", &task);
    return rc != TAAL_OK ? rc : finish_task(loop, task);
}

#endif /* TAAL_IO_SUPPORT_H */
