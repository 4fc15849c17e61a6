/*
** io.c -- chapter 07: readiness I/O in the loop.
**
** A watcher (taal_io) says "tell me when this descriptor can be read, or
** written, without blocking" by holding two handles, a reader and a
** writer. The loop asks the kernel (a backend: poll_epoll.c or
** poll_poll.c) which descriptors are ready, and moves the handles of the
** ready ones to the ready queue, where they run in the same iteration,
** before it runs anything else it had (asyncio's _process_events). That is
** all readiness I/O is: the reading and writing happen in the callbacks,
** with ordinary non-blocking system calls that now will not block.
**
** The other half is *when* to ask. asyncio asks on every iteration: when
** callbacks are ready it polls with a zero timeout, which is a system call
** per iteration even for a loop that only switches between tasks. taal
** asks:
**   - when nothing is ready: it must block somewhere, and the kernel's
**     poll is the place, with the earliest timer's deadline as its timeout
**     (step 1 of run_once, in loop.c);
**   - while work is ready, once every io_interval iterations (61 by
**     default, the number tokio's scheduler uses), with a zero timeout.
** So a busy loop makes one system call per 61 iterations, and a descriptor
** that becomes ready while the loop is busy waits at most 61 iterations
** before its callback is queued: that is the bound, in iterations, that
** the tests check. In time it is 61 times the longest iteration.
*/
#include "poller.h"
#include "sock.h"

#include <errno.h>
#include <limits.h>
#ifndef _WIN32
#include <fcntl.h>
#endif

/* ---- the watchers ------------------------------------------------------- */

void taal__io_init(taal_loop *loop, unsigned interval)
{
    list_init(&loop->watchers);
    list_init(&loop->sockets);
    list_init(&loop->held);
    loop->io_interval = interval != 0 ? interval : TAAL_IO_INTERVAL;
#ifdef _WIN32
    /* Winsock works only between WSAStartup() and WSACleanup(), which it
     * counts: each loop takes one reference, and gives it back when it
     * closes. Should it fail (it does not, on any Windows since 95), every
     * socket call fails with WSANOTINITIALISED, which is TAAL_EIO. */
    WSADATA wsa;
    loop->wsa_started = WSAStartup(MAKEWORD(2, 2), &wsa) == 0;
#endif
}

int taal_io_open(taal_io *io, taal_loop *loop, taal_socket fd)
{
#ifdef _WIN32
    bool invalid = fd == TAAL_INVALID_SOCKET;
#else
    bool invalid = fd < 0;
#endif
    if (io == NULL || loop == NULL || invalid)
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    if (io->loop != NULL)
        return TAAL_EBUSY;
    *io = (taal_io){.loop = loop, .fd = fd};
    list_push_back(&loop->watchers, &io->link);
    return TAAL_OK;
}

/* Tells the kernel what `io` now waits for (the poller is made the first
 * time anything waits), and keeps the loop's count of watchers that wait:
 * with none, an idle loop sleeps without asking the kernel about I/O. */
static int set_events(taal_io *io, unsigned events)
{
    taal_loop *loop = io->loop;
    if (events == io->events)
        return TAAL_OK;
    if (loop->poller == NULL) {
        int rc = taal__poller_open(loop);
        if (rc != TAAL_OK)
            return rc;
    }
    int rc = taal__poller_set(loop, io, events);
    if (rc != TAAL_OK)
        return rc;
    loop->io_wanted += (events != 0) - (io->events != 0);
    io->events = (uint8_t)events;
    return TAAL_OK;
}

static int add(taal_io *io, taal_handle *handle, unsigned event, taal_callback_fn fn,
               void *data)
{
    if (io->loop == NULL || fn == NULL)
        return TAAL_EINVAL;
    int rc = set_events(io, io->events | event);
    if (rc != TAAL_OK)
        return rc;
    handle->fn.call = fn;
    handle->data = data;
    handle->future = NULL;
    handle->cancelled = false;
    return TAAL_OK;
}

int taal_add_reader(taal_io *io, taal_callback_fn fn, void *data)
{
    return io == NULL ? TAAL_EINVAL : add(io, &io->reader, TAAL_IO_READ, fn, data);
}

int taal_add_writer(taal_io *io, taal_callback_fn fn, void *data)
{
    return io == NULL ? TAAL_EINVAL : add(io, &io->writer, TAAL_IO_WRITE, fn, data);
}

/* A callback already made ready is taken back too: once removed, it never
 * runs, as asyncio's remove_reader() cancels the handle. */
static int remove_one(taal_io *io, taal_handle *handle, unsigned event)
{
    if (io == NULL)
        return TAAL_EINVAL;
    link_remove(&handle->link);
    if (io->loop != NULL)
        set_events(io, io->events & ~event); /* removing cannot fail */
    return TAAL_OK;
}

int taal_remove_reader(taal_io *io)
{
    return io == NULL ? TAAL_EINVAL : remove_one(io, &io->reader, TAAL_IO_READ);
}

int taal_remove_writer(taal_io *io)
{
    return io == NULL ? TAAL_EINVAL : remove_one(io, &io->writer, TAAL_IO_WRITE);
}

int taal_io_close(taal_io *io)
{
    if (io == NULL)
        return TAAL_EINVAL;
    if (io->loop == NULL)
        return TAAL_OK;
    taal_remove_reader(io);
    taal_remove_writer(io);
    link_remove(&io->link);
    io->loop = NULL;
    return TAAL_OK;
}

/* A handle already in the ready queue (ready since an earlier poll, and not
 * run yet: a busy loop of higher priority) is not pushed twice. */
int taal__io_ready(taal_io *io, unsigned events)
{
    /* LAB(readiness) BEGIN: make ready the reader and writer that wait for `events` */
    int made_ready = 0;
    if ((events & TAAL_IO_READ) && (io->events & TAAL_IO_READ) &&
        !link_linked(&io->reader.link)) {
        taal__ready_push(io->loop, &io->reader);
        made_ready++;
    }
    if ((events & TAAL_IO_WRITE) && (io->events & TAAL_IO_WRITE) &&
        !link_linked(&io->writer.link)) {
        taal__ready_push(io->loop, &io->writer);
        made_ready++;
    }
    return made_ready;
    /* LAB(readiness) END: (void)io; (void)events; return 0; */
}

#ifdef _WIN32
/* Windows: FIONBIO, and a socket handle that a child process does not
 * inherit (Windows's close-on-exec). */
int taal_set_nonblocking(taal_socket fd)
{
    u_long on = 1;
    if (ioctlsocket(fd, FIONBIO, &on) != 0)
        return taal_status_from_errno(taal__sock_errno());
    if (!SetHandleInformation((HANDLE)fd, HANDLE_FLAG_INHERIT, 0))
        return TAAL_EIO;
    return TAAL_OK;
}

/* Winsock's codes, as the errno values of the same meaning that MinGW's
 * and MSVC's <errno.h> define; a code with none stays as it is (all are
 * above 10000, where no errno value is). */
int taal__sock_error(int err)
{
    switch (err) {
    case WSAEWOULDBLOCK: return EWOULDBLOCK;
    case WSAEINPROGRESS: return EINPROGRESS;
    case WSAEINTR: return EINTR;
    case WSAECONNREFUSED: return ECONNREFUSED;
    case WSAECONNRESET: return ECONNRESET;
    case WSAECONNABORTED: return ECONNABORTED;
    case WSAESHUTDOWN: return EPIPE; /* sent after shutdown(SD_SEND) */
    case WSAENOTCONN: return ENOTCONN;
    case WSAEADDRINUSE: return EADDRINUSE;
    case WSAEMFILE: return EMFILE;
    case WSAENOBUFS: return ENOBUFS;
    case WSAETIMEDOUT: return ETIMEDOUT;
    default: return err;
    }
}

int taal__sock_errno(void)
{
    return taal__sock_error(WSAGetLastError());
}
#else
int taal_set_nonblocking(taal_socket fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return taal_status_from_errno(errno);
    return TAAL_OK;
}

int taal__sock_error(int err)
{
    return err;
}
#endif

/* ---- polling: step 1 of an iteration ------------------------------------ */

int taal__io_poll(taal_loop *loop, int timeout_ms)
{
    loop->io_ticks = 0;
    loop->io_polls++;
    return taal__poller_wait(loop, timeout_ms);
}

/*
** Nothing is ready: block in the kernel until a descriptor is ready or
** the loop's time reaches `deadline` (INT64_MAX: no timer, so only I/O
** can wake the loop). poll and epoll count in milliseconds; the timeout is
** rounded up, so that the loop never wakes before the timer is due and
** spins until it is.
**
** The virtual clock cannot sleep: its time moves only when the loop has
** nothing to do. But a socket's peer is real, and may answer in a moment.
** So it polls with a short real timeout (TAAL_IO_GRACE_MS) first, and
** only if nothing came does time jump to the deadline. A peer in the same
** program, on 127.0.0.1, has always answered by then: the kernel hands
** loopback data over inside the send() that sent it.
*/
/* The virtual clock moves to `deadline`, if there is one and it is later. */
static void jump(taal_loop *loop, int64_t deadline)
{
    if (loop->virtual_clock && deadline != INT64_MAX && deadline > loop->now)
        loop->now = deadline;
}

int taal__io_wait(taal_loop *loop, int64_t deadline)
{
    /* LAB(io_wait) BEGIN: poll until I/O or `deadline`; virtual time: a grace, a jump */
    int64_t now = taal__now(loop);
    if (loop->virtual_clock) {
        int timeout = deadline == INT64_MAX ? -1 : deadline <= now ? 0 : TAAL_IO_GRACE_MS;
        int made_ready = taal__io_poll(loop, timeout);
        if (made_ready == 0)
            jump(loop, deadline);
        return made_ready;
    }
    int timeout = -1;
    if (deadline != INT64_MAX) {
        int64_t ms = deadline <= now ? 0 : (deadline - now + 999999) / 1000000;
        timeout = ms > INT_MAX ? INT_MAX : (int)ms;
    }
    return taal__io_poll(loop, timeout);
    /* LAB(io_wait) END: jump(loop, deadline); return taal__io_poll(loop, 0); */
}

/* ---- closing -------------------------------------------------------------- */

void taal__sockets_close(taal_loop *loop); /* stream.c */

/* The loop closes: its streams and servers are closed and freed (their
 * tasks are gone already), the caller's watchers forgotten (their storage
 * is the caller's), and the poller freed. */
void taal__io_close(taal_loop *loop)
{
    taal__sockets_close(loop);
    while (!list_empty(&loop->watchers)) {
        taal_io *io = TAAL_CONTAINER_OF(loop->watchers.next, taal_io, link);
        link_remove(&io->reader.link);
        link_remove(&io->writer.link);
        link_remove(&io->link);
        *io = (taal_io){.fd = io->fd};
    }
    taal__poller_free(loop);
    loop->io_wanted = 0;
#ifdef _WIN32
    if (loop->wsa_started)
        WSACleanup();
    loop->wsa_started = false;
#endif
}

/* ---- statuses --------------------------------------------------------------- */

int taal_status_from_errno(int err)
{
    err = taal__sock_error(err); /* Windows: a WSAE code too */
    switch (err) {
    case ECONNREFUSED: return TAAL_ECONNREFUSED;
    case ECONNRESET: return TAAL_ECONNRESET;
    case EPIPE: return TAAL_EPIPE;
    case EMFILE:
    case ENFILE: return TAAL_EMFILE;
    case EADDRINUSE: return TAAL_EADDRINUSE;
    case ECONNABORTED: return TAAL_ECONNABORTED;
    case ETIMEDOUT: return TAAL_ETIMEDOUT;
    case ENOMEM:
    case ENOBUFS: return TAAL_ENOMEM;
    default: return TAAL_EIO;
    }
}

const char *taal__io_strerror(int status)
{
    switch (status) {
    case TAAL_ECONNREFUSED: return "connection refused";
    case TAAL_ECONNRESET: return "connection reset by peer";
    case TAAL_EPIPE: return "broken pipe";
    case TAAL_EEOF: return "end of stream";
    case TAAL_ELIMIT: return "over the limit";
    case TAAL_EMFILE: return "too many open files";
    case TAAL_EADDRINUSE: return "address already in use";
    case TAAL_EADDR: return "not a numeric address";
    case TAAL_EIO: return "input/output error";
    case TAAL_EPROTO: return "malformed HTTP message";
    case TAAL_EWFULL: return "write buffer is full";
    case TAAL_ENOTCONN: return "stream is closed";
    case TAAL_ECONNABORTED: return "connection aborted";
    default: return "unknown status";
    }
}
