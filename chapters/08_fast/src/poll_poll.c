/*
** poll_poll.c -- chapter 07's portable backend: POSIX poll().
**
** The loop keeps an array of struct pollfd, one entry per watcher that
** waits for something, and hands all of it to the kernel at every poll:
** simple, available everywhere (macOS, the BSDs, Linux), and O(watchers)
** per call, which is fine for the tens of descriptors of a small program
** and not for ten thousand (see poll_epoll.c). Each watcher remembers its
** place in the array (`slot`, plus one), so that changing or removing it
** is O(1): a removed entry is replaced by the last one.
**
** CMake builds this file instead of poll_epoll.c where there is no epoll,
** or when TAAL_POLL_BACKEND=poll asks for it, so that both are tested.
*/
#define _POSIX_C_SOURCE 200809L

#include "poller.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>

struct taal_poller {
    struct pollfd *fds; /* what the kernel is asked about */
    taal_io **ios;      /* the watcher of each entry */
    uint32_t len, cap;  /* entries used, allocated */
};

const char *taal_io_backend(void)
{
    return "poll";
}

int taal__poller_open(taal_loop *loop)
{
    struct taal_poller *p = taal__alloc(sizeof *p);
    if (p == NULL)
        return TAAL_ENOMEM;
    *p = (struct taal_poller){0};
    loop->poller = p;
    return TAAL_OK;
}

void taal__poller_free(taal_loop *loop)
{
    struct taal_poller *p = loop->poller;
    if (p == NULL)
        return;
    taal__free(p->fds);
    taal__free(p->ios);
    taal__free(p);
    loop->poller = NULL;
}

/* Room for one more entry: both arrays grow together, doubling. */
static int grow(struct taal_poller *p)
{
    if (p->len < p->cap)
        return TAAL_OK;
    if (p->cap >= UINT32_MAX / 2)
        return TAAL_ENOMEM;
    uint32_t cap = p->cap ? 2 * p->cap : 16;
    struct pollfd *fds = taal__realloc(p->fds, cap * sizeof *fds);
    if (fds == NULL)
        return TAAL_ENOMEM;
    p->fds = fds;
    taal_io **ios = taal__realloc(p->ios, cap * sizeof *ios);
    if (ios == NULL)
        return TAAL_ENOMEM; /* fds is bigger, which is harmless */
    p->ios = ios;
    p->cap = cap;
    return TAAL_OK;
}

int taal__poller_set(taal_loop *loop, taal_io *io, unsigned events)
{
    struct taal_poller *p = loop->poller;
    if (events == 0) {
        if (io->slot != 0) {
            uint32_t i = io->slot - 1, last = --p->len;
            p->fds[i] = p->fds[last];
            p->ios[i] = p->ios[last];
            p->ios[i]->slot = i + 1;
            io->slot = 0;
        }
        return TAAL_OK;
    }
    if (io->slot == 0) {
        int rc = grow(p);
        if (rc != TAAL_OK)
            return rc;
        p->fds[p->len] = (struct pollfd){.fd = io->fd};
        p->ios[p->len] = io;
        io->slot = ++p->len;
    }
    p->fds[io->slot - 1].events = (short)((events & TAAL_IO_READ ? POLLIN : 0) |
                                          (events & TAAL_IO_WRITE ? POLLOUT : 0));
    return TAAL_OK;
}

int taal__poller_wait(taal_loop *loop, int timeout_ms)
{
    struct taal_poller *p = loop->poller;
    int n = poll(p->fds, (nfds_t)p->len, timeout_ms);
    int made_ready = 0;
    for (uint32_t i = 0; n > 0 && i < p->len; i++) { /* n < 0 (EINTR): nothing */
        short e = p->fds[i].revents;
        if (e == 0)
            continue;
        n--;
        unsigned ready = 0;
        if (e & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
            ready |= TAAL_IO_READ;
        if (e & (POLLOUT | POLLHUP | POLLERR | POLLNVAL))
            ready |= TAAL_IO_WRITE;
        made_ready += taal__io_ready(p->ios[i], ready);
    }
    return made_ready;
}
