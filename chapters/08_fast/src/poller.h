/*
** poller.h -- what io.c asks of a backend, the part of chapter 07 that
** differs most from system to system (sock.h has the rest). Three backends
** implement it, and CMake builds one: poll_epoll.c (Linux's epoll),
** poll_poll.c (POSIX poll(), everywhere) or poll_wsapoll.c (Windows's
** WSAPoll()). All are level-triggered and all call taal__io_ready() for
** every watcher the kernel says is ready.
*/
#ifndef TAAL_POLLER_H
#define TAAL_POLLER_H

#include "internal.h"

/* Makes loop->poller. TAAL_OK, TAAL_ENOMEM, or the status of the errno of
 * the system call that failed (epoll_create1 can run out of descriptors). */
int taal__poller_open(taal_loop *loop);

/* Frees loop->poller (and closes the epoll descriptor); NULL is harmless. */
void taal__poller_free(taal_loop *loop);

/* Tells the kernel that `io` now waits for `events` (0: for nothing, so
 * that the kernel forgets its descriptor). Removing never fails. */
int taal__poller_set(taal_loop *loop, taal_io *io, unsigned events);

/* Asks the kernel which descriptors are ready, waiting at most
 * `timeout_ms` (-1: without limit), and calls taal__io_ready() for each.
 * Returns the number of callbacks that made ready. */
int taal__poller_wait(taal_loop *loop, int timeout_ms);

/* A backend found `io` ready for `events` (TAAL_IO_READ | TAAL_IO_WRITE;
 * a hang-up or an error counts as both): its reader and writer, if it
 * wants them and they are not already ready, go to the ready queue. Returns
 * how many it made ready. */
int taal__io_ready(taal_io *io, unsigned events);

#endif /* TAAL_POLLER_H */
