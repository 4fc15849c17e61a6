/*
** poll_wsapoll.c -- chapter 07's Windows backend: WSAPoll().
**
** WSAPoll is Winsock's poll(): the same array of { descriptor, events,
** revents }, called WSAPOLLFD, with the same POLLIN and POLLOUT, for
** sockets only. So this file is poll_poll.c with Winsock's names, and what
** poll_poll.c says holds here: one entry per watcher that waits for
** something, all of it handed to the kernel at every call, O(watchers).
**
** Where WSAPoll is not poll():
**   - it fails (WSAEINVAL) when asked about no socket at all, where poll()
**     sleeps; the loop never asks then (it sleeps in its own timer wait
**     while no watcher wants an event), but a wait here with nothing to
**     watch sleeps, to keep poll()'s meaning;
**   - the events asked for may be only POLLIN (POLLRDNORM | POLLRDBAND)
**     and POLLOUT (POLLWRNORM): asking for POLLPRI is an error;
**   - its known defect: before Windows 10 version 2004, a non-blocking
**     connect() that fails (nobody listens: the peer answers with a
**     reset) is never reported, neither as POLLOUT nor as POLLERR or
**     POLLHUP. The socket just never becomes ready, so that
**     taal_open_connection() waits until a timeout scope ends it, instead
**     of failing with TAAL_ECONNREFUSED. libuv avoids WSAPoll for this
**     reason (it uses I/O completion ports); Python's asyncio on Windows
**     selects with select() in its SelectorEventLoop, where a failed
**     connect is in the "exceptional" set. Windows 10 2004 and later, and
**     wine, report it as POLLHUP | POLLERR, which is what the tests see.
**
** CMake builds this file on Windows (TAAL_POLL_BACKEND auto or wsapoll).
*/
#include "poller.h"
#include "sock.h"

#include <limits.h>

struct taal_poller {
    WSAPOLLFD *fds;    /* what the kernel is asked about */
    taal_io **ios;     /* the watcher of each entry */
    uint32_t len, cap; /* entries used, allocated */
};

const char *taal_io_backend(void)
{
    return "wsapoll";
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
    WSAPOLLFD *fds = taal__realloc(p->fds, cap * sizeof *fds);
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
        p->fds[p->len] = (WSAPOLLFD){.fd = io->fd};
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
    if (p->len == 0) { /* WSAPoll refuses an empty array: sleep as poll() would */
        Sleep(timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms);
        return 0;
    }
    int n = WSAPoll(p->fds, (ULONG)p->len, timeout_ms);
    int made_ready = 0;
    for (uint32_t i = 0; n > 0 && i < p->len; i++) { /* SOCKET_ERROR: nothing */
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
