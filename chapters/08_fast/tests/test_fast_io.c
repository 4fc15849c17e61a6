/*
** test_fast_io.c -- chapter 08: the I/O path made fast (docs/08_fast.md,
** "I/O: small writes held back").
**
** The first write after a poll goes at once; a small write after it,
** before the next poll, is held in the stream's buffer and sent with the
** others of its burst in one system call: when its task waits to read,
** with the next write that is not small, before write_eof(), close and
** abort, before the loop polls or waits, at the latest 16 iterations later
** (TAAL__HOLD_ROUNDS) at any priority, and before the loop returns. Each
** test counts the stream's send() calls (taal_stream.sends), which is what
** the change saves, and checks that every byte still arrives, in order.
** All on 127.0.0.1, on the virtual clock, checking at the end that the
** loop holds nothing and no descriptor stayed open.
*/
#include "io_support.h"

#include <stddef.h>

/* ---- the peer: echoes, or counts what came until the end -------------------- */

typedef enum behaviour { ECHO, COUNT } behaviour;

typedef struct handler {
    taal_coro co;
    taal_stream *stream;
    behaviour what;
    char data[4096];
    size_t n, total;
    uint32_t hash;
    int st;
} handler;

/* FNV-1a over `n` more bytes: what the two sides of COUNT compare. */
static uint32_t fnv(uint32_t hash, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hash = (hash ^ (unsigned char)data[i]) * 16777619u;
    return hash;
}

#define FNV_START 2166136261u

static int handler_body(taal_coro *self)
{
    handler *f = (handler *)self;
    TAAL_BEGIN(f);
    f->hash = FNV_START;
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        f->total += f->n;
        f->hash = fnv(f->hash, f->data, f->n);
        if (f->what == ECHO && taal_stream_write(f->stream, f->data, f->n) != TAAL_OK)
            break;
    }
    if (f->what == COUNT && f->st == TAAL_OK) {
        f->n = (size_t)snprintf(f->data, sizeof f->data, "%zu %08x\n", f->total,
                                (unsigned)f->hash);
        taal_stream_write(f->stream, f->data, f->n);
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

static taal_server *serve(taal_loop *loop, behaviour what)
{
    taal_server *server = NULL;
    taal_start_server(loop, "127.0.0.1", 0, handler_body, &(handler){.what = what},
                      sizeof(handler), offsetof(handler, stream), &server);
    return server;
}

/* ---- the client under test ----------------------------------------------------------
 */

typedef struct client client;

struct client {
    taal_coro co;
    int port;
    int (*steps)(taal_coro *);
    taal_stream *stream;
    char data[16384];
    char back[16384];
    size_t n;
    uint64_t sends;   /* the stream's sends at the moment the test looks */
    uint32_t hash;    /* of what it wrote, for COUNT */
    int st, i, spins; /* spins: a busy task's iterations */
    bool ok;
};

/* Runs `body` on a client frame to its end; the frame as it ended. */
static int run_client(taal_loop *loop, taal_body_fn body, client *c)
{
    taal_task *task = NULL;
    int rc = taal_task_create(loop, body, c, sizeof *c, "client", &task);
    if (rc != TAAL_OK)
        return rc;
    rc = taal_run_until_complete(loop, taal_task_future(task));
    memcpy(c, taal_task_frame(task), sizeof *c);
    taal_task_release(task);
    return rc;
}

/* A loop, a server, the client `body` against it, and the cleanup checks. */
static void run_against(behaviour what, taal_body_fn body, client *c)
{
    int fds = open_fds();
    taal_loop loop;
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_server *server = serve(&loop, what);
    CHECK(server != NULL);
    c->port = server->port;
    CHECK_EQ(run_client(&loop, body, c), TAAL_OK);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Sixteen writes of 64 bytes in one step, then a read of the echo: the
 * first goes at once, and the read's wait sends the other fifteen. */
static int sixteen_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (f->i = 0; f->i < 16; f->i++) {
        memset(f->data + 64 * f->i, 'a' + f->i, 64);
        f->st = taal_stream_write(f->stream, f->data + 64 * f->i, 64);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->back, 1024, f->n);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->sends = f->stream->sends;
    f->ok = memcmp(f->back, f->data, 1024) == 0;
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(sixteen_small_writes_in_one_step_go_out_in_one_send_before_the_read_waits)
{
    client c = {0};
    run_against(ECHO, sixteen_body, &c);
    CHECK(c.ok);           /* every byte back, in order */
    CHECK_EQ(c.sends, 2u); /* chapter 07: 16 */
}

/* Eight writes, one per iteration (a sleep(0) between them, so that the
 * loop is never idle), then a wait on a timer, not on the stream: the
 * first goes at once, the other seven are held while the task is busy,
 * and go together once nothing else is ready, before the loop waits. */
static int spread_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (f->i = 0; f->i < 8; f->i++) {
        memset(f->data + 100 * f->i, '0' + f->i, 100);
        f->st = taal_stream_write(f->stream, f->data + 100 * f->i, 100);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_SLEEP(0);
    }
    TAAL_SLEEP(0.5); /* not a read: the loop sends before it waits */
    f->sends = f->stream->sends;
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->back, 800, f->n);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->ok = memcmp(f->back, f->data, 800) == 0;
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(writes_spread_over_busy_iterations_go_out_together_once_the_loop_is_idle)
{
    client c = {0};
    run_against(ECHO, spread_body, &c);
    CHECK(c.ok);
    CHECK_EQ(c.sends, 2u); /* the first, then the loop's, before the read */
}

/* A busy loop does not keep held bytes forever: a spinner task that never
 * lets the loop idle, and a write; the bytes go within HOLD_ROUNDS (16)
 * iterations. */
typedef struct spinner {
    taal_coro co;
    client *c;
    int i;
} spinner;

static int spinner_body(taal_coro *self)
{
    spinner *f = (spinner *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 40; f->i++) {
        if (f->c->stream != NULL && f->c->stream->sends > 1 && f->c->spins == 0)
            f->c->spins = f->i;
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

static int busy_body(taal_coro *self)
{
    client *f = (client *)self;
    taal_task *task;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = taal_task_create(taal_running_loop(), spinner_body, &(spinner){.c = f},
                             sizeof(spinner), "spinner", &task);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_task_release(task);
    f->st = taal_stream_write(f->stream, "now:", 4);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(f->stream, "held", 4);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->sends = f->stream->sends; /* 1: the second write is held */
    TAAL_SLEEP(1);               /* the spinner runs its 40 iterations */
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->back, 8, f->n);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->ok = memcmp(f->back, "now:held", 8) == 0;
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(held_bytes_go_out_within_sixteen_iterations_of_a_loop_that_is_never_idle)
{
    client c = {0};
    run_against(ECHO, busy_body, &c);
    CHECK(c.ok);
    CHECK_EQ(c.sends, 1u); /* the second write was held */
    CHECK(c.spins >= 1);   /* and sent while the spinner still spun, */
    CHECK(c.spins <= 18);  /* within HOLD_ROUNDS (+ the spinner's first steps) */
}

/* A byte sent at once, a small write held, then one of 8 KiB: the held
 * and the large go in one sendmsg(), the held first; then write_eof() with
 * a small write held. COUNT's answer says that every byte came, in order. */
static int mixed_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (size_t k = 0; k < 1 + 100 + 8192 + 7; k++)
        f->data[k] = (char)('A' + k % 26);
    f->hash = fnv(FNV_START, f->data, 1 + 100 + 8192 + 7);
    f->st = taal_stream_write(f->stream, f->data, 1);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(f->stream, f->data + 1, 100);
    if (f->st == TAAL_OK && taal_stream_pending(f->stream) != 100)
        f->st = TAAL_EIO; /* it was not held */
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(f->stream, f->data + 101, 8192);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->sends = f->stream->sends;
    f->ok = taal_stream_pending(f->stream) == 0; /* the kernel took both */
    f->st = taal_stream_write(f->stream, f->data + 101 + 8192, 7);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write_eof(f->stream); /* sends the 7 first */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->back, sizeof f->back, f->n);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->back[f->n] = '\0';
    snprintf(f->data, sizeof f->data, "%d %08x\n", 1 + 100 + 8192 + 7, (unsigned)f->hash);
    f->ok = f->ok && strcmp(f->back, f->data) == 0;
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_held_write_goes_out_before_a_large_one_in_the_same_send_and_before_write_eof)
{
    client c = {0};
    run_against(COUNT, mixed_body, &c);
    CHECK(c.ok);
    CHECK_EQ(c.sends, 2u); /* the 1, then the 100 and the 8192 together */
}

/* Two small writes, the second held, then close (or abort) at once: the
 * bytes still reach the peer, as chapter 07's went at once. The server
 * counts what came: 5 bytes each time. */
static size_t counted;

static int count_handler_body(taal_coro *self)
{
    handler *f = (handler *)self;
    TAAL_BEGIN(f);
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        counted += f->n;
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

static int write_then_close_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = taal_stream_write(f->stream, "he", 2);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(f->stream, "llo", 3);
    if (f->st == TAAL_OK && taal_stream_pending(f->stream) != 3)
        f->st = TAAL_EIO; /* not held: the test would prove nothing */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->i == 0)
        taal_stream_close(f->stream);
    else
        taal_stream_abort(f->stream);
    f->stream = NULL;
    TAAL_SLEEP(0.5); /* the server reads */
    TAAL_END();
}

TEST(a_held_write_reaches_the_peer_through_close_and_abort)
{
    for (int i = 0; i < 2; i++) {
        int fds = open_fds();
        taal_loop loop;
        CHECK_EQ(open_loop(&loop), TAAL_OK);
        taal_server *server = NULL;
        CHECK_EQ(taal_start_server(&loop, "127.0.0.1", 0, count_handler_body, NULL,
                                   sizeof(handler), offsetof(handler, stream), &server),
                 TAAL_OK);
        counted = 0;
        client c = {.port = server->port, .i = i};
        CHECK_EQ(run_client(&loop, write_then_close_body, &c), TAAL_OK);
        CHECK_EQ(counted, 5u);
        taal_server_release(server);
        for (int k = 0; k < 50 && live_objects(&loop) > 0; k++)
            taal_run_once(&loop);
        CHECK_EQ(live_objects(&loop), 0);
        taal_loop_close(&loop);
        CHECK_EQ(open_fds(), fds);
    }
}

/* ---- held bytes leave whatever the loop does next ------------------------------ */

/* A raw peer: a listening socket of our own, so that the test sees what
 * the kernel has been given, not what a taal stream has read. */
typedef struct raw_peer {
    taal_socket listener, peer;
    int port;
    size_t got; /* bytes the peer has received so far */
} raw_peer;

static bool raw_listen(raw_peer *p)
{
    struct sockaddr_in in = {0};
    socklen_t len = sizeof in;
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    p->peer = TAAL_INVALID_SOCKET;
    p->got = 0;
    p->listener = socket(AF_INET, SOCK_STREAM, 0);
    if (p->listener == TAAL_INVALID_SOCKET)
        return false;
    bool ok = bind(p->listener, (struct sockaddr *)&in, sizeof in) == 0 &&
              listen(p->listener, 1) == 0 &&
              getsockname(p->listener, (struct sockaddr *)&in, &len) == 0;
    p->port = ntohs(in.sin_port);
    return ok;
}

/* Takes the connection (the client's connect has completed on loopback),
 * non-blocking from then on. */
static bool raw_accept(raw_peer *p)
{
    p->peer = accept(p->listener, NULL, NULL);
    return p->peer != TAAL_INVALID_SOCKET && taal_set_nonblocking(p->peer) == TAAL_OK;
}

/* Reads what has arrived, without waiting; the bytes so far. */
static size_t raw_poll(raw_peer *p)
{
    char buf[256];
    long k;
    while ((k = sock_read(p->peer, buf, sizeof buf)) > 0)
        p->got += (size_t)k;
    return p->got;
}

static void raw_close(raw_peer *p)
{
    if (p->peer != TAAL_INVALID_SOCKET)
        sock_close(p->peer);
    sock_close(p->listener);
}

typedef struct busy_writer {
    taal_coro co;
    raw_peer *p;
    taal_stream *stream;
    int st, i;
    int arrived; /* the yield after which both bytes had arrived, or -1 */
} busy_writer;

/* At priority 1, "a" then "b" (held), then 2,000 yields, looking at the
 * peer after each: nothing at priority 0 may be needed for "b" to leave. */
static int busy_writer_body(taal_coro *self)
{
    busy_writer *f = (busy_writer *)self;
    TAAL_BEGIN(f);
    taal_task_set_priority(taal_current_task(), 1);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->p->port);
    if (f->st != TAAL_OK || !raw_accept(f->p))
        TAAL_FAIL(f->st != TAAL_OK ? f->st : TAAL_EIO);
    f->st = taal_stream_write(f->stream, "a", 1);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(f->stream, "b", 1);
    if (f->st == TAAL_OK && taal_stream_pending(f->stream) != 1)
        f->st = TAAL_EIO; /* not held: the test would prove nothing */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->arrived = -1;
    for (f->i = 0; f->i < 2000; f->i++) {
        TAAL_YIELD();
        if (f->arrived < 0 && raw_poll(f->p) == 2)
            f->arrived = f->i;
    }
    taal_stream_close(f->stream);
    f->stream = NULL;
    TAAL_END();
}

TEST(a_held_write_leaves_within_sixteen_iterations_whatever_the_writer_s_priority)
{
    int fds = open_fds();
    taal_loop loop;
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    raw_peer p;
    CHECK(raw_listen(&p));
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, busy_writer_body, &(busy_writer){.p = &p},
                              sizeof(busy_writer), "writer", &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    busy_writer *f = taal_task_frame(task);
    CHECK(f->arrived >= 0); /* chapter 08 before: "b" never left */
    CHECK(f->arrived <= 16);
    taal_task_release(task);
    raw_close(&p);
    for (int k = 0; k < 50 && live_objects(&loop) > 0; k++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

typedef struct short_writer {
    taal_coro co;
    raw_peer *p;
    taal_stream **stream;
    int st;
} short_writer;

/* Three small writes, and the task ends: the last two are held. */
static int short_writer_body(taal_coro *self)
{
    short_writer *f = (short_writer *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, *f->stream, "127.0.0.1", f->p->port);
    if (f->st != TAAL_OK || !raw_accept(f->p))
        TAAL_FAIL(f->st != TAAL_OK ? f->st : TAAL_EIO);
    f->st = taal_stream_write(*f->stream, "x", 1);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(*f->stream, "y", 1);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write(*f->stream, "z", 1);
    if (f->st == TAAL_OK && taal_stream_pending(*f->stream) != 2)
        f->st = TAAL_EIO; /* not held: the test would prove nothing */
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* Once taal_run_until_complete() (or taal_run_once()) has returned, the
 * peer has every byte: the program may stop the loop and wait on the
 * peer. Once with the task ending the run, once with one iteration. */
TEST(every_byte_written_has_left_when_the_loop_returns)
{
    for (int once = 0; once < 2; once++) {
        int fds = open_fds();
        taal_loop loop;
        CHECK_EQ(open_loop(&loop), TAAL_OK);
        raw_peer p;
        CHECK(raw_listen(&p));
        taal_stream *stream = NULL;
        taal_task *task = NULL;
        CHECK_EQ(taal_task_create(&loop, short_writer_body,
                                  &(short_writer){.p = &p, .stream = &stream},
                                  sizeof(short_writer), "writer", &task),
                 TAAL_OK);
        if (once) {
            for (int k = 0; k < 100 && !taal_future_done(taal_task_future(task)); k++)
                CHECK_EQ(taal_run_once(&loop), TAAL_OK);
            CHECK(taal_future_done(taal_task_future(task)));
        } else {
            CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
        }
        CHECK(stream != NULL);
        CHECK_EQ(taal_stream_pending(stream), 0u); /* chapter 08 before: 2 */
        CHECK_EQ(raw_poll(&p), 3u);                /* chapter 08 before: 1 */
        taal_task_release(task);
        taal_stream_close(stream);
        raw_close(&p);
        for (int k = 0; k < 50 && live_objects(&loop) > 0; k++)
            taal_run_once(&loop);
        CHECK_EQ(live_objects(&loop), 0);
        taal_loop_close(&loop);
        CHECK_EQ(open_fds(), fds);
    }
}

static const taal_test tests[] = {
    TEST_ENTRY(sixteen_small_writes_in_one_step_go_out_in_one_send_before_the_read_waits),
    TEST_ENTRY(writes_spread_over_busy_iterations_go_out_together_once_the_loop_is_idle),
    TEST_ENTRY(held_bytes_go_out_within_sixteen_iterations_of_a_loop_that_is_never_idle),
    TEST_ENTRY(
        a_held_write_goes_out_before_a_large_one_in_the_same_send_and_before_write_eof),
    TEST_ENTRY(a_held_write_reaches_the_peer_through_close_and_abort),
    TEST_ENTRY(
        a_held_write_leaves_within_sixteen_iterations_whatever_the_writer_s_priority),
    TEST_ENTRY(every_byte_written_has_left_when_the_loop_returns),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
