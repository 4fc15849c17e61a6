/*
** poll_epoll.c -- chapter 07's backend for Linux: epoll.
**
** epoll keeps the set of watched descriptors in the kernel: a descriptor
** is added once (epoll_ctl), and each wait costs O(the ready ones), where
** poll() hands the kernel the whole array on every call, O(all of them).
** With thousands of idle connections that is the difference between a
** loop that scales and one that does not, and why libuv, tokio (mio) and
** asyncio's selectors all prefer it on Linux.
**
** Level-triggered, as asyncio's: a descriptor still readable is reported
** again at the next wait. Edge-triggered (EPOLLET) would report it once
** per change and save the epoll_ctl calls that switch interest on and off,
** at the price of a rule every reader must keep: read until EAGAIN, or
** never hear of that descriptor again. taal's streams read once per
** readiness, so they need level-triggering.
*/
#define _GNU_SOURCE /* epoll_create1's EPOLL_CLOEXEC: Linux, not POSIX */

#include "poller.h"

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

enum { EVENTS_PER_WAIT = 64 }; /* more ready descriptors wait for the next poll */

struct taal_poller {
    int epfd;                                   /* the kernel's set */
    struct epoll_event events[EVENTS_PER_WAIT]; /* what one wait returns */
};

const char *taal_io_backend(void)
{
    return "epoll";
}

int taal__poller_open(taal_loop *loop)
{
    struct taal_poller *p = taal__alloc(sizeof *p);
    if (p == NULL)
        return TAAL_ENOMEM;
    p->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (p->epfd < 0) {
        int err = errno;
        taal__free(p);
        return taal_status_from_errno(err);
    }
    loop->poller = p;
    return TAAL_OK;
}

void taal__poller_free(taal_loop *loop)
{
    if (loop->poller == NULL)
        return;
    close(loop->poller->epfd);
    taal__free(loop->poller);
    loop->poller = NULL;
}

int taal__poller_set(taal_loop *loop, taal_io *io, unsigned events)
{
    int epfd = loop->poller->epfd;
    if (events == 0) {
        /* A descriptor the program already closed has left the set by
         * itself (EBADF): nothing to undo, so the error is ignored. */
        if (io->in_kernel)
            epoll_ctl(epfd, EPOLL_CTL_DEL, io->fd, NULL);
        io->in_kernel = false;
        return TAAL_OK;
    }
    struct epoll_event ev = {0};
    ev.events =
        (events & TAAL_IO_READ ? EPOLLIN : 0u) | (events & TAAL_IO_WRITE ? EPOLLOUT : 0u);
    ev.data.ptr = io;
    if (epoll_ctl(epfd, io->in_kernel ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, io->fd, &ev) != 0)
        return taal_status_from_errno(errno);
    io->in_kernel = true;
    return TAAL_OK;
}

int taal__poller_wait(taal_loop *loop, int timeout_ms)
{
    struct taal_poller *p = loop->poller;
    int n = epoll_wait(p->epfd, p->events, EVENTS_PER_WAIT, timeout_ms);
    int made_ready = 0;
    for (int i = 0; i < n; i++) { /* n < 0 (EINTR): nothing is ready */
        uint32_t e = p->events[i].events;
        unsigned ready = 0;
        if (e & (EPOLLIN | EPOLLHUP | EPOLLERR))
            ready |= TAAL_IO_READ;
        if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
            ready |= TAAL_IO_WRITE;
        made_ready += taal__io_ready(p->events[i].data.ptr, ready);
    }
    return made_ready;
}
