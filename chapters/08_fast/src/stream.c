/*
** stream.c -- chapter 07: streams, connections and servers (asyncio's
** StreamReader/StreamWriter, open_connection and start_server).
**
** A stream is a socket plus two buffers and the two callbacks that move
** bytes between them and the kernel when the socket is ready:
**
**   stream_readable   recv() into the read buffer's free room; at the end
**                     of the stream, or an error, remember it; with the
**                     buffer full, stop reading (back-pressure); wake the
**                     task waiting to read, if any.
**   stream_writable   send() from the write buffer; once it is empty, stop
**                     watching for writability (and give back a buffer
**                     grown for one large write); below the low-water
**                     mark, wake the task waiting in drain.
**
** The tasks never call recv() or send() themselves: they wait on a plain
** future of the stream (rwait or wwait) until the callback says there is
** something new, then look again. So a wait is one of chapter 02's awaits
** of a future, and chapter 05's cancellation works unchanged: cancelling
** a task that waits on a stream cancels that future, the task wakes with
** TAAL_ECANCELLED, and the stream is as it was.
**
** Who frees a stream: it counts who holds it (`refs`): the program, until
** it closes it; a task parked on one of its futures, until that task has
** resumed; the server that accepted it, until its handler ends. It is
** freed once nobody holds it and its socket is closed, which may be after
** the program closed it, while what it wrote is still being sent.
*/
#define _POSIX_C_SOURCE 200809L

#include "internal.h"
#include "sock.h"

#include <errno.h>
#include <string.h>
#ifndef _WIN32
#include <sys/uio.h> /* struct iovec, for sendmsg() */
#endif

_Static_assert(offsetof(taal_stream, kind) == offsetof(taal_server, kind),
               "streams and servers share the loop's list, told apart by kind");

static void stream_readable(void *data);
static void stream_writable(void *data);
static void flush_held(taal_stream *s);
static void unhold(taal_stream *s);

/* ---- life and death ------------------------------------------------------ */

static size_t buffered(const taal_stream *s)
{
    return s->rend - s->rstart;
}

static size_t pending(const taal_stream *s)
{
    return s->wend - s->wstart;
}

/* A new stream on the connected, non-blocking socket `fd`, held by the
 * program; the read buffer comes in the same block. NULL: no memory. */
static taal_stream *stream_new(taal_loop *loop, taal_socket fd)
{
    taal_stream *s = taal__alloc(sizeof *s + TAAL_STREAM_BUFFER);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->kind = TAAL_SOCKET_STREAM;
    s->refs = 1;
    s->rbuf = (char *)(s + 1);
    s->high = TAAL_STREAM_HIGH_WATER;
    s->low = TAAL_STREAM_LOW_WATER;
    s->max_write = TAAL_STREAM_MAX_WRITE;
    s->loop = loop;
    taal_io_open(&s->io, loop, fd);
    list_push_back(&loop->sockets, &s->link);
    return s;
}

/* Off the loop, socket closed, memory freed: now, whoever holds it. For a
 * closing loop, and (through stream_retire) for the reaper. */
static void stream_destroy(taal_stream *s)
{
    if (!s->fd_closed) {
        /* Bytes held back (chapter 08) go out as chapter 07's would have:
         * once, if the kernel takes them. */
        if (pending(s) > 0 && !(s->io.events & TAAL_IO_WRITE))
            (void)send(s->io.fd, s->wbuf + s->wstart, TAAL__SOCK_LEN(pending(s)),
                       TAAL__SEND_FLAGS);
        taal_io_close(&s->io);
        taal__sock_close(s->io.fd);
    }
    unhold(s);
    link_remove(&s->reap.link);
    link_remove(&s->link);
    taal__free(s->wbuf);
    taal__free(s);
}

static void reap_stream(void *s)
{
    stream_destroy(s);
}

/*
** A stream nobody holds any more is freed in a later iteration, never at
** once. The reason is the futures inside it: the task that a future of the
** stream woke is running the very step that let go of the stream, and the
** handle that woke it still points at that future until the step is over
** (taal__handle_run() drops its reference after the callback returns). So
** the socket is closed at once, and the memory waits for the next
** iteration, like a deferred free in an RCU scheme.
*/
static void stream_retire(taal_stream *s)
{
    if (!s->fd_closed) {
        taal_io_close(&s->io);
        taal__sock_close(s->io.fd);
        s->fd_closed = true;
    }
    if (taal_handle_pending(&s->reap))
        return;
    if (taal_call_soon(s->loop, &s->reap, reap_stream, s) != TAAL_OK)
        stream_destroy(s); /* the loop is closing: nothing runs any more */
}

static void maybe_free(taal_stream *s)
{
    if (s->refs == 0 && s->fd_closed)
        stream_retire(s);
}

static void drop_ref(taal_stream *s)
{
    if (s->refs > 0)
        s->refs--;
    maybe_free(s);
}

/* Completes `f` if a task may be waiting on it (initialised, pending). */
static void wake(taal_future *f, int status)
{
    if (f->waiters.next == NULL || taal_future_done(f))
        return;
    if (status == TAAL_OK)
        taal_future_set_result(f, NULL);
    else
        taal_future_set_error(f, status);
}

/* The socket closes; whoever waits in wait_closed learns it. */
static void close_fd(taal_stream *s)
{
    if (s->fd_closed)
        return;
    taal_io_close(&s->io);
    taal__sock_close(s->io.fd);
    unhold(s);
    s->fd_closed = true;
    s->reading = false;
    wake(&s->closed, TAAL_OK);
    maybe_free(s);
}

/* ---- reading ---------------------------------------------------------------- */

/* The stream reads while its buffer has room, the stream has not ended and
 * the program has not closed it. Setting the reader can fail (epoll, or
 * poll's array): that ends reading with the error, which a read reports. */
static void update_reading(taal_stream *s)
{
    bool want = s->rstatus == TAAL_OK && !s->fd_closed && !s->user_closed &&
                buffered(s) < TAAL_STREAM_BUFFER;
    if (want == s->reading)
        return;
    if (!want) {
        taal_remove_reader(&s->io);
    } else {
        int rc = taal_add_reader(&s->io, stream_readable, s);
        if (rc != TAAL_OK) {
            s->rstatus = rc;
            want = false;
        }
    }
    s->reading = want;
}

static void stream_readable(void *data)
{
    taal_stream *s = data;
    if (s->rstart == s->rend) {
        s->rstart = s->rend = 0;
    } else if (s->rend == TAAL_STREAM_BUFFER) { /* room only at the front: move */
        memmove(s->rbuf, s->rbuf + s->rstart, buffered(s));
        s->rend -= s->rstart;
        s->rstart = 0;
    }
    taal__ssize n = recv(s->io.fd, s->rbuf + s->rend,
                         TAAL__SOCK_LEN(TAAL_STREAM_BUFFER - s->rend), 0);
    int err = n < 0 ? taal__sock_errno() : 0;
    if (n > 0) {
        s->rend += (size_t)n;
    } else if (n == 0) {
        s->rstatus = TAAL_EEOF;
    } else if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR) {
        return; /* a readiness that went away: it happens, and costs nothing */
    } else {
        s->last_errno = err;
        s->rstatus = taal_status_from_errno(err);
    }
    update_reading(s);
    wake(&s->rwait, TAAL_OK);
}

/* A task is to wait on `waiter` (rwait or wwait): one task per side at a
 * time, and the task holds the stream until it has resumed. */
static int park(taal_stream *s, taal_future *waiter, bool *busy)
{
    if (*busy)
        return TAAL_EBUSY;
    if (taal_current_task() == NULL)
        return TAAL_ENOTASK;
    if (waiter == &s->rwait && pending(s) > 0)
        flush_held(s); /* chapter 08: what it wrote goes before it waits for the answer */
    int rc = taal_future_init(waiter, s->loop);
    if (rc != TAAL_OK)
        return rc;
    *busy = true;
    s->refs++;
    return TAAL_SUSPENDED;
}

int taal__stream_resumed(taal_stream *s, taal_future *waiter, int status)
{
    if (waiter == &s->rwait)
        s->rbusy = false;
    else
        s->wbusy = false;
    drop_ref(s); /* may free it: then status is not TAAL_OK (closed) */
    return status;
}

int taal__stream_want(taal_stream *s, size_t have)
{
    if (s == NULL)
        return TAAL_EINVAL;
    if (s->user_closed)
        return TAAL_ENOTCONN;
    if (buffered(s) > have)
        return TAAL_OK;
    if (s->rstatus != TAAL_OK)
        return s->rstatus;
    if (buffered(s) == TAAL_STREAM_BUFFER)
        return TAAL_ELIMIT; /* full: no more can come until bytes are taken */
    return park(s, &s->rwait, &s->rbusy);
}

size_t taal_stream_buffered(const taal_stream *s)
{
    return s == NULL ? 0 : buffered(s);
}

size_t taal_stream_pending(const taal_stream *s)
{
    return s == NULL ? 0 : pending(s);
}

bool taal_stream_at_eof(const taal_stream *s)
{
    return s != NULL && buffered(s) == 0 && s->rstatus == TAAL_EEOF;
}

int taal_stream_errno(const taal_stream *s)
{
    return s == NULL ? 0 : s->last_errno;
}

size_t taal_stream_peek(const taal_stream *s, const char **data)
{
    if (s == NULL || data == NULL)
        return 0;
    *data = s->rbuf + s->rstart;
    return buffered(s);
}

/* Taking bytes out makes room: a stream that stopped reading because its
 * buffer was full starts again. */
size_t taal_stream_consume(taal_stream *s, size_t n)
{
    if (s == NULL)
        return 0;
    if (n > buffered(s))
        n = buffered(s);
    s->rstart += n;
    if (s->rstart == s->rend)
        s->rstart = s->rend = 0;
    update_reading(s);
    return n;
}

static size_t take(taal_stream *s, void *buf, size_t n)
{
    if (n > buffered(s))
        n = buffered(s);
    if (n > 0)
        memcpy(buf, s->rbuf + s->rstart, n);
    return taal_stream_consume(s, n);
}

int taal__stream_read_take(taal_stream *s, void *buf, size_t n, size_t *got)
{
    *got = 0;
    if (s == NULL || (buf == NULL && n > 0))
        return TAAL_EINVAL;
    *got = take(s, buf, n);
    return TAAL_OK; /* 0 bytes: the end of the stream */
}

int taal__stream_exactly(taal_stream *s, void *buf, size_t n, size_t *got)
{
    *got = 0;
    if (s == NULL || (buf == NULL && n > 0) || n > TAAL_STREAM_BUFFER)
        return TAAL_EINVAL;
    if (s->user_closed)
        return TAAL_ENOTCONN;
    if (buffered(s) >= n) {
        *got = take(s, buf, n);
        return TAAL_OK;
    }
    if (s->rstatus == TAAL_EEOF) {
        *got = take(s, buf, n); /* asyncio's IncompleteReadError.partial */
        return TAAL_EEOF;
    }
    if (s->rstatus != TAAL_OK)
        return s->rstatus;
    return park(s, &s->rwait, &s->rbusy);
}

/* Where `sep` starts in the first `len` bytes of `data`, or len. A plain
 * search, started afresh at every wake-up: a line that arrives a byte at a
 * time costs O(n^2) comparisons, where asyncio remembers how far it looked.
 * For the short lines of a line protocol it does not matter. */
static size_t find(const char *data, size_t len, const char *sep, size_t sep_len)
{
    for (size_t i = 0; i + sep_len <= len; i++)
        if (data[i] == sep[0] && memcmp(data + i, sep, sep_len) == 0)
            return i;
    return len;
}

int taal__stream_until(taal_stream *s, const char *sep, size_t sep_len, void *buf,
                       size_t cap, size_t *got)
{
    *got = 0;
    if (s == NULL || sep == NULL || sep_len == 0 || buf == NULL)
        return TAAL_EINVAL;
    if (s->user_closed)
        return TAAL_ENOTCONN;
    size_t limit = cap < TAAL_STREAM_BUFFER ? cap : TAAL_STREAM_BUFFER;
    size_t have = buffered(s) < limit ? buffered(s) : limit;
    size_t at = find(s->rbuf + s->rstart, have, sep, sep_len);
    if (at < have) {
        *got = take(s, buf, at + sep_len);
        return TAAL_OK;
    }
    if (buffered(s) >= limit)
        return TAAL_ELIMIT; /* the separator is not within the limit */
    if (s->rstatus == TAAL_EEOF) {
        *got = take(s, buf, have);
        return TAAL_EEOF;
    }
    if (s->rstatus != TAAL_OK)
        return s->rstatus;
    return park(s, &s->rwait, &s->rbusy);
}

/* ---- writing ---------------------------------------------------------------- */

/* Writing failed with `err`: what was buffered is lost, and every later
 * write and drain says why. */
static void write_failed(taal_stream *s, int err)
{
    s->last_errno = err;
    s->wstatus = taal_status_from_errno(err);
    s->wstart = s->wend = 0;
    s->paused = false;
    taal_remove_writer(&s->io);
    wake(&s->wwait, TAAL_OK);
    if (s->user_closed)
        close_fd(s);
}

static void shut_writing(taal_stream *s)
{
    s->eof_pending = false;
    s->shut = true;
    if (shutdown(s->io.fd, TAAL__SHUT_WR) != 0) {
        int err = taal__sock_errno();
        if (err != ENOTCONN)
            write_failed(s, err);
    }
}

/* Does `have + more` stay within `limit`? Asked without adding, and
 * without subtracting where `have` may already be past `limit` (a limit
 * lowered below the backlog): unsigned arithmetic that crosses zero wraps
 * around to a huge number, and a refusal becomes an acceptance. */
static bool fits(size_t have, size_t more, size_t limit)
{
    return have <= limit && more <= limit - have;
}

/* Room for `extra` more bytes: first by moving what is pending to the
 * front, then by growing, doubling, up to max_write, or to just what one
 * large write needs past it. The buffer keeps its size afterwards (up to
 * max_write: see stream_writable), so a steady writer allocates nothing. */
static int reserve(taal_stream *s, size_t extra)
{
    if (!fits(pending(s), extra, SIZE_MAX))
        return TAAL_ENOMEM; /* more than any memory holds */
    size_t need = pending(s) + extra;
    if (fits(s->wend, extra, s->wcap))
        return TAAL_OK;
    if (need <= s->wcap) {
        memmove(s->wbuf, s->wbuf + s->wstart, pending(s));
        s->wend -= s->wstart;
        s->wstart = 0;
        return TAAL_OK;
    }
    size_t cap = s->wcap ? s->wcap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    size_t most = need > s->max_write ? need : s->max_write;
    if (cap > most)
        cap = most;
    char *wbuf = taal__alloc(cap);
    if (wbuf == NULL)
        return TAAL_ENOMEM;
    if (pending(s) > 0)
        memcpy(wbuf, s->wbuf + s->wstart, pending(s));
    s->wend = pending(s);
    s->wstart = 0;
    taal__free(s->wbuf);
    s->wbuf = wbuf;
    s->wcap = cap;
    return TAAL_OK;
}

/* A buffer grown past the hard limit for one large write is given back
 * once it is empty, so that the stream keeps at most max_write between
 * large writes (and a write the kernel took whole keeps nothing of it). */
static void release_oversized(taal_stream *s)
{
    if (pending(s) == 0 && s->wcap > s->max_write) {
        taal__free(s->wbuf);
        s->wbuf = NULL;
        s->wcap = 0;
    }
}

/*
** Chapter 08: the small writes of a burst are held back, and go out together.
**
** Chapter 07 sends every write at once when nothing is queued: a system
** call, and on loopback the whole of the peer's TCP receive path, per
** write. Sixteen pipelined HTTP requests, each written by its own task,
** were sixteen sends; the server's sixteen responses, written in one step,
** sixteen more. Now the first write after the loop polled still goes at
** once (a ping-pong, an echo: nothing to wait for, and nothing added). A
** second write to the stream before the next poll is a burst: if it is
** small (at most HOLD bytes held in all, and no more than the low-water
** mark) and the kernel is not known to be full, it is only copied to the
** write buffer, the stream goes on the loop's `held` list, and it sends
** everything it holds, in one call, at the first of:
**   - its task waits to read from the stream (park): requests go out
**     before their task waits for the answers;
**   - a write that is not small, sent together with what is held in one
**     sendmsg() of two pieces (writev's gather, without a copy);
**   - write_eof(), close or abort, new write limits, the loop closing;
**   - the loop is about to poll or to wait: nothing else is ready, or its
**     io_interval has come round (a busy loop's writers have until then
**     to add to the burst: the next task of a pipeline, woken by the one
**     before);
**   - TAAL__HOLD_ROUNDS (16) iterations have begun since the first write
**     was held, whatever runs meanwhile and at whatever priority;
**   - the loop returns to the program (taal_run_once(), the end of
**     taal_run_forever() and so of taal_run_until_complete() and
**     taal_run()): once the program has its loop back, the peer has every
**     byte, as it would have from chapter 07 or asyncio.
** The last three are the loop's doing (taal__streams_send_held(), called
** by loop.c), so held bytes never wait on the ready queue behind work of a
** higher priority. Only writes made while the loop runs are held. What the
** program sees: taal_stream_pending() counts held bytes, and an error of
** the send (a reset peer) is reported by the next write, drain or close
** instead of by the write that was held, as asyncio's transports report it.
*/
enum {
    HOLD = 4095, /* held back: at most this many bytes, less than a page */
};

static bool waiting_to_write(const taal_stream *s)
{
    return (s->io.events & TAAL_IO_WRITE) != 0;
}

/* Holds `n` bytes of `data` back, if they are few and the loop runs. */
static bool hold(taal_stream *s, const void *data, size_t n)
{
#ifdef _WIN32
    (void)s, (void)data, (void)n;
    return false; /* chapter 08 is not built on Windows: no sendmsg() */
#else
    taal_loop *loop = s->loop;
    if (s->burst != loop->io_polls + 1 || n > HOLD || pending(s) + n > HOLD ||
        pending(s) + n > s->low || s->paused || !loop->running)
        return false;
    if (!link_linked(&s->held)) {
        if (loop->holding++ == 0)
            loop->held_rounds = 0; /* the first held: the rounds count from here */
        list_push_back(&loop->held, &s->held);
    }
    memcpy(s->wbuf + s->wend, data, n);
    s->wend += n;
    if (pending(s) > s->peak)
        s->peak = pending(s);
    return true;
#endif
}

/* Off the loop's list: it holds nothing back any more (or is going). */
static void unhold(taal_stream *s)
{
    if (link_linked(&s->held)) {
        link_remove(&s->held);
        s->loop->holding--;
    }
}

void taal__streams_send_held(taal_loop *loop)
{
    while (loop->holding > 0)
        flush_held(TAAL_CONTAINER_OF(loop->held.next, taal_stream, held));
}

/* One send() of what is held and then `data`: sendmsg() with two pieces
 * when bytes are held. */
static taal__ssize send_with_held(taal_stream *s, const void *data, size_t n)
{
    s->sends++;
#ifndef _WIN32
    if (pending(s) > 0) {
        struct iovec iov[2] = {{s->wbuf + s->wstart, pending(s)}, {(void *)data, n}};
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
        return sendmsg(s->io.fd, &msg, TAAL__SEND_FLAGS);
    }
#endif
    return send(s->io.fd, data, TAAL__SOCK_LEN(n), TAAL__SEND_FLAGS);
}

/* Bytes remain queued: the writer sends them when the kernel has room. */
static int queue_rest(taal_stream *s)
{
    unhold(s); /* the writer's job now */
    int rc = taal_add_writer(&s->io, stream_writable, s);
    if (rc != TAAL_OK) {
        s->wstatus = rc;
        s->wstart = s->wend = 0;
    }
    return rc;
}

/* Sends what is held now, as the writer would (which shuts writing or
 * closes the socket after it, if asked); leaves the rest to the writer. */
static void flush_held(taal_stream *s)
{
    unhold(s);
    size_t n = pending(s);
    if (n == 0 || s->fd_closed || waiting_to_write(s))
        return;
    if (!s->eof_pending && !s->user_closed) { /* the common case: one send */
        s->sends++;
        taal__ssize k =
            send(s->io.fd, s->wbuf + s->wstart, TAAL__SOCK_LEN(n), TAAL__SEND_FLAGS);
        if (k == (taal__ssize)n) {
            s->wstart = s->wend = 0;
            return;
        }
        int err = k < 0 ? taal__sock_errno() : 0;
        if (k < 0 && err != EAGAIN && err != EWOULDBLOCK && err != EINTR) {
            write_failed(s, err);
            return;
        }
        if (k > 0)
            s->wstart += (size_t)k;
        queue_rest(s);
        return;
    }
    stream_writable(s);
    if (pending(s) > 0 && !s->fd_closed && s->wstatus == TAAL_OK)
        queue_rest(s);
}

int taal_stream_write(taal_stream *s, const void *data, size_t n)
{
    if (s == NULL || (data == NULL && n > 0))
        return TAAL_EINVAL;
    if (s->user_closed || s->shut || s->eof_pending || s->fd_closed)
        return TAAL_ENOTCONN;
    if (s->wstatus != TAAL_OK)
        return s->wstatus;
    if (n == 0)
        return TAAL_OK;
    /* The hard limit bounds a backlog, not one write: a stream that is not
     * paused (its writer drains, or has not written much) takes any amount
     * at once, as asyncio's `writer.write(body); await writer.drain()`
     * does; a paused one, whose writer went past the high-water mark and
     * has not drained since, is refused what would take it past max_write. */
    /* LAB(pressure) BEGIN: a writer that has not drained is refused at the hard limit */
    if (s->paused && !fits(pending(s), n, s->max_write))
        return TAAL_EWFULL;
    /* LAB(pressure) END: (void)0; */
    int rc = reserve(s, n); /* first, so that a failure has written nothing */
    if (rc != TAAL_OK)
        return rc;
    size_t sent = 0;
    if (!waiting_to_write(s)) { /* the kernel may have room: held bytes, then these */
        if (hold(s, data, n))
            return TAAL_OK;
        size_t held = pending(s);
        taal__ssize k = send_with_held(s, data, n);
        int err = k < 0 ? taal__sock_errno() : 0;
        if (k < 0 && err != EAGAIN && err != EWOULDBLOCK && err != EINTR) {
            write_failed(s, err);
            return s->wstatus;
        }
        if (k > 0) {
            size_t of_held = (size_t)k < held ? (size_t)k : held;
            s->wstart += of_held;
            sent = (size_t)k - of_held;
        }
        s->burst = s->loop->io_polls + 1; /* more before the next poll: a burst */
        if (sent == n) {                  /* all of it, and all that was held */
            if (held > 0)
                unhold(s);
            s->wstart = s->wend = 0;
            release_oversized(s);
            return TAAL_OK;
        }
    }
    memcpy(s->wbuf + s->wend, (const char *)data + sent, n - sent);
    s->wend += n - sent;
    if (pending(s) > s->peak)
        s->peak = pending(s);
    rc = queue_rest(s);
    if (rc != TAAL_OK)
        return rc;
    /* LAB(pressure) BEGIN: past the high-water mark, the stream is paused */
    if (pending(s) > s->high)
        s->paused = true;
    /* LAB(pressure) END: (void)0; */
    return TAAL_OK;
}

static void stream_writable(void *data)
{
    taal_stream *s = data;
    if (pending(s) > 0) {
        s->sends++;
        taal__ssize k = send(s->io.fd, s->wbuf + s->wstart, TAAL__SOCK_LEN(pending(s)),
                             TAAL__SEND_FLAGS);
        int err = k < 0 ? taal__sock_errno() : 0;
        if (k < 0 && (err == EAGAIN || err == EWOULDBLOCK || err == EINTR))
            return;
        if (k < 0) {
            write_failed(s, err);
            return;
        }
        s->wstart += (size_t)k;
    }
    if (pending(s) == 0) {
        s->wstart = s->wend = 0;
        release_oversized(s);
        taal_remove_writer(&s->io);
        if (s->eof_pending)
            shut_writing(s);
    }
    /* LAB(pressure) BEGIN: down to the low-water mark: resume, and wake the drainer */
    if (s->paused && pending(s) <= s->low) {
        s->paused = false;
        wake(&s->wwait, TAAL_OK);
    }
    /* LAB(pressure) END: (void)0; */
    if (pending(s) == 0 && s->user_closed)
        close_fd(s); /* closed by the program, and now flushed */
}

int taal__stream_drain(taal_stream *s)
{
    if (s == NULL)
        return TAAL_EINVAL;
    if (s->wstatus != TAAL_OK)
        return s->wstatus;
    if (s->user_closed)
        return TAAL_ENOTCONN;
    /* LAB(pressure) BEGIN: a paused stream makes its writer wait */
    if (!s->paused)
        return TAAL_OK;
    return park(s, &s->wwait, &s->wbusy);
    /* LAB(pressure) END: return TAAL_OK; */
}

int taal_stream_set_write_limits(taal_stream *s, size_t high, size_t low,
                                 size_t max_write)
{
    if (s == NULL)
        return TAAL_EINVAL;
    high = high ? high : s->high;
    low = low ? low : s->low;
    max_write = max_write ? max_write : s->max_write;
    if (low > high || high > max_write)
        return TAAL_EINVAL;
    flush_held(s); /* chapter 08: a stream paused below waits for its writer */
    s->high = high;
    s->low = low;
    s->max_write = max_write;
    /* Limits below what is buffered are taken, as asyncio takes them: the
     * stream is paused at once, so drain waits; and a paused stream takes
     * no write past the hard limit, so with a backlog already past it,
     * every write is refused until the writer has drained. */
    /* LAB(pressure) BEGIN: limits below what is buffered pause the stream at once */
    if (pending(s) > s->high)
        s->paused = true;
    /* LAB(pressure) END: (void)0; */
    return TAAL_OK;
}

int taal_stream_write_eof(taal_stream *s)
{
    if (s == NULL)
        return TAAL_EINVAL;
    if (s->user_closed || s->fd_closed)
        return TAAL_ENOTCONN;
    if (s->shut || s->eof_pending)
        return TAAL_OK;
    flush_held(s);
    if (s->fd_closed)
        return s->wstatus; /* the flush failed, and the stream was closed */
    if (pending(s) == 0)
        shut_writing(s);
    else
        s->eof_pending = true;
    return s->wstatus;
}

/* ---- closing ------------------------------------------------------------------ */

/* No more reads or writes from the program. Waiting tasks wake with
 * TAAL_ENOTCONN; what is buffered for sending is still sent (unless
 * `abort`), then the socket closes. */
static void stream_close(taal_stream *s, bool abort)
{
    if (s->user_closed) {
        if (abort && !s->fd_closed) {
            s->wstart = s->wend = 0;
            close_fd(s);
        }
        return;
    }
    s->user_closed = true;
    update_reading(s);
    wake(&s->rwait, TAAL_ENOTCONN);
    wake(&s->wwait, TAAL_ENOTCONN);
    s->refs++; /* so that nothing below frees it before the program's ref goes */
    /* What is held goes first, even on abort: chapter 07 had sent it at
     * once. Once all is sent, this closes the socket. */
    flush_held(s);
    if (abort)
        s->wstart = s->wend = 0;
    if (pending(s) == 0)
        close_fd(s);
    s->refs--;
    drop_ref(s); /* the program's */
}

void taal_stream_close(taal_stream *s)
{
    if (s != NULL)
        stream_close(s, false);
}

void taal_stream_abort(taal_stream *s)
{
    if (s != NULL)
        stream_close(s, true);
}

int taal__stream_close_start(taal_stream *s)
{
    if (s == NULL)
        return TAAL_EINVAL;
    if (s->user_closed)
        return TAAL_ENOTCONN; /* closed before: it may be gone already */
    if (taal_current_task() == NULL)
        return TAAL_ENOTASK;
    s->refs++; /* the waiter's, until close_end */
    stream_close(s, false);
    if (s->fd_closed)
        return taal__stream_close_end(s, TAAL_OK);
    int rc = taal_future_init(&s->closed, s->loop);
    return rc == TAAL_OK ? TAAL_SUSPENDED : taal__stream_close_end(s, rc);
}

int taal__stream_close_end(taal_stream *s, int status)
{
    if (!s->fd_closed) { /* cancelled while it flushed: give up on the rest */
        s->wstart = s->wend = 0;
        close_fd(s);
    }
    if (status == TAAL_OK)
        status = s->wstatus;
    drop_ref(s);
    return status;
}

/* ---- addresses and sockets ----------------------------------------------------- */

/* Numeric addresses only: inet_pton() never asks DNS, so it never blocks. */
static int parse_address(const char *host, int port, struct sockaddr_storage *ss,
                         socklen_t *len)
{
    if (host == NULL || port < 0 || port > 65535)
        return TAAL_EADDR;
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)(void *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)ss;
    if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        *len = sizeof *in4;
    } else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof *in6;
    } else {
        return TAAL_EADDR;
    }
    return TAAL_OK;
}

/* A non-blocking TCP socket, with Nagle's algorithm off: a request and
 * its response are small writes that must go now, not after the peer's
 * acknowledgement (asyncio turns it off too). */
static int new_socket(int family, taal_socket *fd)
{
    *fd = socket(family, SOCK_STREAM, 0);
    if (*fd == TAAL_INVALID_SOCKET)
        return taal_status_from_errno(taal__sock_errno());
    int rc = taal_set_nonblocking(*fd);
    if (rc != TAAL_OK) {
        taal__sock_close(*fd);
        return rc;
    }
    int one = 1;
    setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, (void *)&one, sizeof one);
#ifdef SO_NOSIGPIPE
    setsockopt(*fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    return TAAL_OK;
}

/* ---- open_connection ------------------------------------------------------------ */

static void connect_ready(void *data)
{
    taal_stream *s = data;
    taal_remove_writer(&s->io);
    wake(&s->wwait, TAAL_OK);
}

/*
** A non-blocking connect() returns at once, usually with EINPROGRESS: the
** handshake goes on in the kernel, and the socket becomes writable when it
** is over, whichever way it went. Only then does getsockopt(SO_ERROR) say
** whether it worked or was refused. On 127.0.0.1 the answer may come
** already from connect() itself; both paths end in connect_end.
*/
int taal__connect_start(taal_stream **out, const char *host, int port)
{
    *out = NULL;
    taal_task *task = taal_current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (taal__cancel_delivered(task))
        return TAAL_ECANCELLED;
    struct sockaddr_storage ss;
    socklen_t len;
    taal_socket fd;
    int rc = parse_address(host, port, &ss, &len);
    if (rc == TAAL_OK)
        rc = new_socket(ss.ss_family, &fd);
    if (rc != TAAL_OK)
        return rc;
    taal_stream *s = stream_new(task->future.loop, fd);
    if (s == NULL) {
        taal__sock_close(fd);
        return TAAL_ENOMEM;
    }
    *out = s;
    if (connect(fd, (struct sockaddr *)&ss, len) == 0)
        return taal__connect_end(out, TAAL_OK);
    int err = taal__sock_errno();
    if (!TAAL__CONNECT_PENDING(err))
        return taal__connect_end(out, taal_status_from_errno(err));
    rc = taal_add_writer(&s->io, connect_ready, s);
    if (rc == TAAL_OK)
        rc = taal_future_init(&s->wwait, s->loop);
    return rc == TAAL_OK ? TAAL_SUSPENDED : taal__connect_end(out, rc);
}

int taal__connect_end(taal_stream **out, int status)
{
    taal_stream *s = *out;
    if (status == TAAL_OK) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(s->io.fd, SOL_SOCKET, SO_ERROR, (void *)&err, &len) != 0)
            err = taal__sock_errno();
        if (err != 0)
            status = taal_status_from_errno(err);
    }
    if (status != TAAL_OK) { /* refused, failed, or cancelled: nothing stays open */
        stream_retire(s);
        *out = NULL;
        return status;
    }
    update_reading(s);
    return s->rstatus == TAAL_EEOF ? TAAL_OK : s->rstatus;
}

/* ---- servers ------------------------------------------------------------------- */

/* The handler's first frame follows the server, aligned for anything. */
#define SERVER_SIZE \
    ((sizeof(taal_server) + TAAL__MAX_ALIGN - 1) / TAAL__MAX_ALIGN * TAAL__MAX_ALIGN)

static void accept_ready(void *data);

static void server_destroy(taal_server *srv)
{
    taal__timer_disarm(srv->loop, &srv->retry);
    link_remove(&srv->reap.link);
    link_remove(&srv->link);
    taal__free(srv);
}

static void reap_server(void *srv)
{
    server_destroy(srv);
}

/* Freed in a later iteration, as a stream is (stream_retire): a task woken
 * by its `closed` future may be the one letting go of it. */
static void server_free(taal_server *srv)
{
    if (!taal_handle_pending(&srv->reap) &&
        taal_call_soon(srv->loop, &srv->reap, reap_server, srv) != TAAL_OK)
        server_destroy(srv);
}

/* Closed and every handler done: wait_closed is over. */
static void server_check(taal_server *srv)
{
    if (srv->serving || !list_empty(&srv->conns))
        return;
    wake(&srv->closed, TAAL_OK);
    if (srv->released)
        server_free(srv);
}

/* A handler ended: its stream is closed (if the handler did not), and let
 * go of by the server. */
static void handler_finished(taal_future *future, void *data)
{
    (void)future;
    taal_stream *s = data;
    taal_server *srv = s->server;
    taal_task_release(s->handler);
    s->handler = NULL;
    s->server = NULL;
    link_remove(&s->conn);
    taal_stream_close(s);
    drop_ref(s); /* the server's */
    server_check(srv);
}

/* A new connection: its stream, and a task running the handler with the
 * stream in its frame. Without memory for either, the connection is closed
 * at once: the client sees it reset, the server goes on. */
static void serve(taal_server *srv, taal_socket fd)
{
    taal_loop *loop = srv->loop;
    taal_stream *s = stream_new(loop, fd);
    taal_task *task = NULL;
    if (s == NULL || taal_task_create(loop, srv->body, srv->frame, srv->frame_size, NULL,
                                      &task) != TAAL_OK) {
        if (s != NULL)
            stream_retire(s);
        else
            taal__sock_close(fd);
        srv->refused++;
        return;
    }
    memcpy((char *)taal_task_frame(task) + srv->stream_offset, &s, sizeof s);
    s->server = srv;
    s->handler = task;
    s->refs++; /* the server's, until the handler ends */
    list_push_back(&srv->conns, &s->conn);
    taal_future_add_done_callback(taal_task_future(task), &s->handler_done,
                                  handler_finished, s);
    update_reading(s);
    srv->accepted++;
}

static void accept_resume(void *data)
{
    taal_server *srv = data;
    if (srv->serving && taal_add_reader(&srv->io, accept_ready, srv) != TAAL_OK)
        taal__timer_arm(srv->loop, &srv->retry, 100000000); /* try again later */
}

/*
** Accepts what is queued, up to 16 at a time so that a flood of
** connections cannot hold the loop. Out of descriptors (EMFILE), accept()
** fails while the connection stays queued, so the listening socket stays
** readable: a level-triggered loop would call this again at once, forever,
** at 100% CPU. So the server stops listening for a tenth of a second, and
** the kernel holds the connections meanwhile. (libuv keeps a spare
** descriptor instead, closes it, accepts and closes the connection, so
** that the client at least hears "no".)
*/
static void accept_ready(void *data)
{
    taal_server *srv = data;
    for (int i = 0; i < 16 && srv->serving; i++) {
        taal_socket fd = accept(srv->io.fd, NULL, NULL);
        if (fd == TAAL_INVALID_SOCKET) {
            int err = taal__sock_errno();
            if (err == EINTR || err == ECONNABORTED || err == ECONNRESET)
                continue; /* (Winsock: a connection reset while queued) */
            if (err == EAGAIN || err == EWOULDBLOCK)
                return;
            srv->accept_error = taal_status_from_errno(err);
            taal_remove_reader(&srv->io);
            srv->retry.handle.fn.call = accept_resume;
            srv->retry.handle.data = srv;
            srv->retry.handle.future = NULL;
            if (taal__timer_arm(srv->loop, &srv->retry, 100000000) != TAAL_OK)
                accept_resume(srv);
            return;
        }
        int one = 1;
        if (taal_set_nonblocking(fd) != TAAL_OK) {
            taal__sock_close(fd);
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, (void *)&one, sizeof one);
        serve(srv, fd);
    }
}

static int listen_on(const char *host, int port, taal_socket *fd, int *bound)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int rc = parse_address(host, port, &ss, &len);
    if (rc == TAAL_OK)
        rc = new_socket(ss.ss_family, fd);
    if (rc != TAAL_OK)
        return rc;
        /* A server restarted at once may bind while its old connections wait
         * in TIME_WAIT. (Not on Windows, where SO_REUSEADDR lets a second
         * server take a port in use, and TIME_WAIT never stops a bind.) */
#ifndef _WIN32
    int one = 1;
    setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
#endif
    if (bind(*fd, (struct sockaddr *)&ss, len) != 0 || listen(*fd, 128) != 0 ||
        getsockname(*fd, (struct sockaddr *)&ss, &len) != 0) {
        rc = taal_status_from_errno(taal__sock_errno());
        taal__sock_close(*fd);
        return rc;
    }
    *bound =
        ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)(void *)&ss)->sin_port
                                      : ((struct sockaddr_in6 *)(void *)&ss)->sin6_port);
    return TAAL_OK;
}

int taal_start_server(taal_loop *loop, const char *host, int port, taal_body_fn body,
                      const void *frame, size_t frame_size, size_t stream_offset,
                      taal_server **server)
{
    if (server != NULL)
        *server = NULL;
    if (loop == NULL || body == NULL || server == NULL ||
        frame_size < sizeof(taal_coro) || stream_offset < sizeof(taal_coro) ||
        stream_offset > frame_size - sizeof(taal_stream *))
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    taal_server *srv = taal__alloc(SERVER_SIZE + frame_size);
    if (srv == NULL)
        return TAAL_ENOMEM;
    memset(srv, 0, sizeof *srv);
    srv->frame = (char *)srv + SERVER_SIZE;
    if (frame != NULL)
        memcpy(srv->frame, frame, frame_size);
    else
        memset(srv->frame, 0, frame_size);
    taal_socket fd;
    int rc = listen_on(host, port, &fd, &srv->port);
    if (rc != TAAL_OK) {
        taal__free(srv);
        return rc;
    }
    srv->kind = TAAL_SOCKET_SERVER;
    srv->loop = loop;
    srv->body = body;
    srv->frame_size = frame_size;
    srv->stream_offset = stream_offset;
    srv->serving = true;
    list_init(&srv->conns);
    taal_io_open(&srv->io, loop, fd);
    rc = taal_add_reader(&srv->io, accept_ready, srv);
    if (rc != TAAL_OK) {
        taal_io_close(&srv->io);
        taal__sock_close(fd);
        taal__free(srv);
        return rc;
    }
    list_push_back(&loop->sockets, &srv->link);
    *server = srv;
    return TAAL_OK;
}

void taal_server_close(taal_server *srv)
{
    if (srv == NULL || !srv->serving)
        return;
    srv->serving = false;
    taal__timer_disarm(srv->loop, &srv->retry);
    taal_io_close(&srv->io);
    taal__sock_close(srv->io.fd);
    server_check(srv);
}

void taal_server_release(taal_server *srv)
{
    if (srv == NULL || srv->released)
        return;
    taal_server_close(srv);
    srv->released = true;
    server_check(srv);
}

int taal__server_wait_start(taal_server *srv)
{
    if (srv == NULL)
        return TAAL_EINVAL;
    if (taal_current_task() == NULL)
        return TAAL_ENOTASK;
    taal_server_close(srv);
    if (list_empty(&srv->conns))
        return TAAL_OK;
    int rc = taal_future_init(&srv->closed, srv->loop);
    return rc == TAAL_OK ? TAAL_SUSPENDED : rc;
}

void taal__server_wait_end(taal_server *srv)
{
    taal_server_release(srv);
}

/* ---- the closing loop ---------------------------------------------------------- */

/* Every stream and server still there is closed and freed: their tasks
 * are gone already (taal_loop_close() unhooked them first). */
void taal__sockets_close(taal_loop *loop)
{
    /* A handler still running never reaches its own cleanup: a server
     * that knows what its handlers hold frees it now, while their frames
     * are still there (the close frees tasks after the sockets). */
    for (taal_link *l = loop->sockets.next; l != &loop->sockets; l = l->next) {
        uint8_t kind = *((uint8_t *)l + offsetof(taal_stream, kind));
        taal_server *srv = TAAL_CONTAINER_OF(l, taal_server, link);
        if (kind != TAAL_SOCKET_SERVER || srv->abandon == NULL)
            continue;
        for (taal_link *c = srv->conns.next; c != &srv->conns; c = c->next) {
            taal_stream *s = TAAL_CONTAINER_OF(c, taal_stream, conn);
            if (s->handler != NULL && !taal_future_done(&s->handler->future))
                srv->abandon(taal_task_frame(s->handler));
        }
    }
    while (!list_empty(&loop->sockets)) {
        taal_link *l = loop->sockets.next;
        uint8_t kind = *((uint8_t *)l + offsetof(taal_stream, kind));
        if (kind == TAAL_SOCKET_STREAM) {
            stream_destroy(TAAL_CONTAINER_OF(l, taal_stream, link));
        } else {
            taal_server *srv = TAAL_CONTAINER_OF(l, taal_server, link);
            srv->released = true;
            list_init(&srv->conns); /* its streams are in this list too */
            if (srv->serving) {
                srv->serving = false;
                taal_io_close(&srv->io);
                taal__sock_close(srv->io.fd);
            }
            server_destroy(srv);
        }
    }
}
