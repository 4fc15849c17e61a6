/*
** test_stream.c -- chapter 07: streams, open_connection and start_server.
**
** Every test talks to itself over 127.0.0.1 (or ::1) on ports the kernel
** picks, on the virtual clock, and ends by checking that the loop holds
** nothing and that no descriptor stayed open.
*/
#include "io_support.h"

#include <stddef.h>

/* ---- a server whose handler is one of a few behaviours ----------------------- */

/* COUNT reads slowly too, to the end of the stream, and answers with how
 * many bytes came and their hash: "COUNT HASH\n". */
typedef enum behaviour { ECHO, SILENT, CLOSE_AT_ONCE, READ_SLOWLY, COUNT } behaviour;

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
    if (f->what == SILENT) {
        TAAL_SLEEP_STATUS(f->st, 1000); /* never answers (until cancelled) */
    } else if (f->what == READ_SLOWLY || f->what == COUNT) {
        TAAL_SLEEP_STATUS(f->st, 10);
    }
    f->hash = FNV_START;
    while (f->what == ECHO || f->what == READ_SLOWLY || f->what == COUNT) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        f->total += f->n;
        f->hash = fnv(f->hash, f->data, f->n);
        if (f->what == ECHO)
            f->st = taal_stream_write(f->stream, f->data, f->n);
        if (f->st == TAAL_OK)
            TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        if (f->st != TAAL_OK)
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

static taal_server *serve(taal_loop *loop, const char *host, behaviour what)
{
    taal_server *server = NULL;
    taal_start_server(loop, host, 0, handler_body, &(handler){.what = what},
                      sizeof(handler), offsetof(handler, stream), &server);
    return server;
}

/* ---- a client that does what the test says --------------------------------------- */

typedef struct client client;
typedef int (*step_fn)(client *f);

struct client {
    taal_coro co;
    const char *host;
    int port;
    taal_stream *stream;
    char data[70000];
    size_t n, total;
    uint32_t hash; /* of what it wrote, for COUNT */
    int st, i;
    double timeout;
    taal_timeout scope;
    char log[512];
};

static void logf_(client *f, const char *s)
{
    size_t n = strlen(f->log);
    snprintf(f->log + n, sizeof f->log - n, "%s", s);
}

static int connect_body(taal_coro *self) /* connect, in a timeout scope if asked */
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    if (f->timeout > 0)
        taal_timeout_open(&f->scope, f->timeout);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->timeout > 0)
        f->st = taal_timeout_close(&f->scope, f->st);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_connection_carries_bytes_both_ways_over_ipv4_and_ipv6)
{
    int fds = open_fds();
    const char *hosts[] = {"127.0.0.1", "::1"};
    for (int h = 0; h < 2; h++) {
        taal_loop loop;
        open_loop(&loop);
        taal_server *server = serve(&loop, hosts[h], ECHO);
        if (server == NULL && h == 1) { /* no IPv6 on this machine */
            taal_loop_close(&loop);
            continue;
        }
        CHECK(server != NULL);
        client c = {.host = hosts[h], .port = server->port};
        CHECK_EQ(run_task(&loop, connect_body, &c, sizeof c), TAAL_OK);
        taal_loop_close(&loop);
    }
    CHECK_EQ(open_fds(), fds);
}

/* Connects, writes "hello", reads the echo back, closes. */
static int echo_once_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, "hello", 5);
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, 5, f->n);
    if (f->st == TAAL_OK && memcmp(f->data, "hello", 5) != 0)
        f->st = TAAL_EUSER;
    taal_stream_write_eof(f->stream);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    if (f->st == TAAL_OK && f->n != 0)
        f->st = TAAL_EUSER - 1; /* only the end of the stream was left */
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    if (f->st == TAAL_OK && f->n != 0)
        f->st = TAAL_EUSER - 2; /* and it stays the end */
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_read_returns_no_bytes_only_at_the_end_of_the_stream_and_then_again)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", ECHO);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    CHECK_EQ(run_task(&loop, echo_once_body, &c, sizeof c), TAAL_OK);
    taal_server_release(server);
    CHECK(taal_run_once(&loop) == TAAL_OK || true);
    for (int i = 0; i < 10 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* The reads of a StreamReader, on "one\ntwo three" and the end. */
static int reads_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, "one\ntwo three", 13);
    taal_stream_write_eof(f->stream);
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    logf_(f,
          f->st == TAAL_OK && f->n == 4 && memcmp(f->data, "one\n", 4) == 0 ? "L" : "l");
    /* a separator beyond the caller's buffer: the limit, and nothing taken */
    TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, " ", 1, f->data, 3, f->n);
    logf_(f, f->st == TAAL_ELIMIT && f->n == 0 ? "M" : "m");
    TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, " ", 1, f->data, sizeof f->data, f->n);
    logf_(f, f->st == TAAL_OK && f->n == 4 ? "U" : "u");
    /* the end comes first: what came is taken, with the end as status */
    TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, "\n", 1, f->data, sizeof f->data,
                                 f->n);
    logf_(f, f->st == TAAL_EEOF && f->n == 5 && memcmp(f->data, "three", 5) == 0 ? "E"
                                                                                 : "e");
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, 2, f->n);
    logf_(f, f->st == TAAL_EEOF && f->n == 0 ? "X" : "x");
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    logf_(f, f->st == TAAL_OK && f->n == 0 && taal_stream_at_eof(f->stream) ? "R" : "r");
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, TAAL_STREAM_BUFFER + 1,
                                   f->n);
    logf_(f, f->st == TAAL_EINVAL ? "I" : "i");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

TEST(readline_readuntil_readexactly_and_read_as_asyncio_s)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", ECHO);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    taal_task *task = NULL;
    taal_task_create(&loop, reads_body, &c, sizeof c, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(task))->log, "LMUEXRI");
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Writes `total` bytes of a pattern in writes of 50,000, draining after
 * each, to a peer that reads them back slowly; reads the echo and checks
 * every byte. Partial sends and EAGAIN, on both sides. */
static int bulk_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (f->i = 0; f->i < 40; f->i++) {
        for (size_t k = 0; k < 50000; k++)
            f->data[k] = (char)((f->i * 50000 + k) % 251);
        f->st = taal_stream_write(f->stream, f->data, 50000);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        /* read back what came so far, so that neither side's buffers fill */
        while (taal_stream_buffered(f->stream) > 0) {
            TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
            for (size_t k = 0; k < f->n; k++)
                if (f->data[k] != (char)((f->total + k) % 251))
                    TAAL_FAIL(TAAL_EUSER);
            f->total += f->n;
        }
    }
    taal_stream_write_eof(f->stream);
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        for (size_t k = 0; k < f->n; k++)
            if (f->data[k] != (char)((f->total + k) % 251))
                TAAL_FAIL(TAAL_EUSER);
        f->total += f->n;
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->total == 2000000 ? TAAL_OK : TAAL_EUSER - 1);
    TAAL_END();
}

TEST(two_megabytes_through_partial_sends_and_eagain_arrive_intact)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", ECHO);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    CHECK_EQ(run_task(&loop, bulk_body, &c, sizeof c), TAAL_OK);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Against a peer that does not read for 10 s: writes until paused, checks
 * that drain waits (time passes) and what the limits refuse. */
static int pressure_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_set_write_limits(f->stream, 8192, 1024, 32768);
    memset(f->data, 'z', 8192);
    /* fill the kernel first: writes go straight through until it is full */
    while (!f->stream->paused) {
        f->st = taal_stream_write(f->stream, f->data, 4096);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    logf_(f, taal_stream_pending(f->stream) > 8192 ? "P" : "p");
    logf_(f, taal_stream_write(f->stream, f->data, 32768) == TAAL_EWFULL ? "F" : "f");
    logf_(f, taal_stream_pending(f->stream) <= 8192 + 4096 ? "B" : "b");
    TAAL_STREAM_DRAIN_STATUS(f->st, f->stream); /* until the peer reads, at 10 s */
    logf_(f, f->st == TAAL_OK && taal_loop_time(taal_running_loop()) >= 10 ? "D" : "d");
    logf_(f, taal_stream_pending(f->stream) <= 1024 ? "L" : "l");
    logf_(f, f->stream->peak <= 8192 + 4096 ? "K" : "k");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(drain_waits_above_the_high_water_mark_until_the_low_one_and_the_limit_holds)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", READ_SLOWLY);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    taal_task *task = NULL;
    taal_task_create(&loop, pressure_body, &c, sizeof c, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(task))->log, "PFBDLK");
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Writes 4096-byte pieces of 'z' until the kernel takes no more and
 * the stream holds some (`paused` false), or until the stream is paused
 * (true). What it wrote goes into the client's total and hash. */
static int fill(client *f, bool until_paused)
{
    memset(f->data, 'z', 4096);
    while (until_paused ? !f->stream->paused : taal_stream_pending(f->stream) == 0) {
        int st = taal_stream_write(f->stream, f->data, 4096);
        if (st != TAAL_OK)
            return st;
        f->total += 4096;
        f->hash = fnv(f->hash, f->data, 4096);
    }
    return TAAL_OK;
}

/* Is the line in f->data, f->n bytes, COUNT's answer to what f wrote? */
static bool is_count_of_what_was_written(const client *f)
{
    char expect[64];
    int len = snprintf(expect, sizeof expect, "%zu %08x\n", f->total, (unsigned)f->hash);
    return f->n == (size_t)len && memcmp(f->data, expect, f->n) == 0;
}

/* One write of 1 MiB + 5 bytes, the kernel already full; then drain:
 * asyncio's `writer.write(body); await writer.drain()`. */
static char large[(1 << 20) + 5];

static int large_write_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->hash = FNV_START;
    /* first, a write past a (lowered) hard limit that the kernel takes
     * whole: the buffer reserved for it is not kept */
    taal_stream_set_write_limits(f->stream, 1024, 512, 2048);
    memset(f->data, 'y', 4096);
    f->st = taal_stream_write(f->stream, f->data, 4096);
    logf_(f, f->st == TAAL_OK && taal_stream_pending(f->stream) == 0 &&
                     f->stream->wcap <= 2048
                 ? "T"
                 : "t");
    f->total += 4096;
    f->hash = fnv(f->hash, f->data, 4096);
    taal_stream_set_write_limits(f->stream, TAAL_STREAM_HIGH_WATER, TAAL_STREAM_LOW_WATER,
                                 TAAL_STREAM_MAX_WRITE);
    f->st = fill(f, false);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (size_t k = 0; k < sizeof large; k++)
        large[k] = (char)(k % 251);
    f->st = taal_stream_write(f->stream, large, sizeof large);
    logf_(f, f->st == TAAL_OK ? "W" : "w");
    if (f->st == TAAL_OK) {
        f->total += sizeof large;
        f->hash = fnv(f->hash, large, sizeof large);
    }
    logf_(f, f->stream->peak > TAAL_STREAM_MAX_WRITE ? "B" : "b"); /* buffered whole */
    TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    logf_(f, f->st == TAAL_OK ? "D" : "d");
    taal_stream_write_eof(f->stream);
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    logf_(f, f->st == TAAL_OK && is_count_of_what_was_written(f) ? "A" : "a");
    /* sent: the buffer grown past the limit for it is given back */
    logf_(f, f->stream->wcap <= TAAL_STREAM_MAX_WRITE ? "G" : "g");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_write_of_a_mebibyte_and_five_then_drain_arrives_whole_at_the_peer)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", COUNT);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    taal_task *task = NULL;
    taal_task_create(&loop, large_write_body, &c, sizeof c, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(task))->log, "TWBDAG");
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Against a peer that never reads: writes without ever draining. */
static int never_drains_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = fill(f, true);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->n = taal_stream_pending(f->stream);
    f->st = taal_stream_write(f->stream, large, sizeof large);
    logf_(f, f->st == TAAL_EWFULL && taal_stream_pending(f->stream) == f->n ? "F" : "f");
    for (f->i = 0; f->i < 1000; f->i++)
        if ((f->st = taal_stream_write(f->stream, f->data, 4096)) != TAAL_OK)
            break;
    logf_(f, f->st == TAAL_EWFULL ? "R" : "r");
    logf_(f, f->stream->peak <= TAAL_STREAM_MAX_WRITE ? "K" : "k");
    taal_stream_abort(f->stream);
    TAAL_END();
}

TEST(a_writer_that_never_drains_is_still_refused_at_the_hard_limit)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", SILENT);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    taal_task *task = NULL;
    taal_task_create(&loop, never_drains_body, &c, sizeof c, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(task))->log, "FRK");
    taal_task_release(task);
    taal_server_close(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* Limits set below what is buffered: taken, and then they hold. */
static int lowered_limits_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = fill(f, false); /* the kernel is full, the stream holds a little */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    memset(f->data, 'z', 12288);
    taal_stream_write(f->stream, f->data, 4096); /* buffered whole: past 4096 */
    /* a high-water mark below the backlog: paused at once, as asyncio does */
    logf_(f, taal_stream_set_write_limits(f->stream, 4096, 1024, 8192) == TAAL_OK &&
                     f->stream->paused
                 ? "S"
                 : "s");
    /* more than 8192 buffered (under the defaults), then a hard limit below it */
    taal_stream_set_write_limits(f->stream, TAAL_STREAM_HIGH_WATER, TAAL_STREAM_LOW_WATER,
                                 TAAL_STREAM_MAX_WRITE);
    taal_stream_write(f->stream, f->data, 12288);
    taal_stream_set_write_limits(f->stream, 4096, 1024, 8192);
    f->n = taal_stream_pending(f->stream);
    logf_(f, taal_stream_write(f->stream, "x", 1) == TAAL_EWFULL ? "F" : "f");
    logf_(f, taal_stream_pending(f->stream) == f->n && f->n > 8192 ? "N" : "n");
    TAAL_STREAM_DRAIN_STATUS(f->st, f->stream); /* until the peer reads, at 10 s */
    logf_(f, f->st == TAAL_OK && taal_stream_pending(f->stream) <= 1024 ? "D" : "d");
    logf_(f, taal_stream_write(f->stream, "x", 1) == TAAL_OK ? "W" : "w");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(write_limits_set_below_the_backlog_pause_the_stream_and_refuse_writes_until_drained)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", READ_SLOWLY);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    taal_task *task = NULL;
    taal_task_create(&loop, lowered_limits_body, &c, sizeof c, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(task))->log, "SFNDW");
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* ---- timers, cancellation, misuse ---------------------------------------------------
 */

static int ticks;

static void tick(void *timer)
{
    ticks++;
    if (ticks < 5)
        taal_call_later(taal_running_loop(), timer, 1, tick, timer);
}

/* Reads from a silent server, in a timeout scope of `timeout`. */
static int silent_read_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_timeout_open(&f->scope, f->timeout);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    f->st = taal_timeout_close(&f->scope, f->st);
    f->i = f->st;
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_FAIL(f->i);
    TAAL_END();
}

TEST(timers_keep_firing_while_a_read_waits_and_a_read_times_out)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", SILENT);
    CHECK(server != NULL);
    taal_timer timer = {0};
    ticks = 0;
    taal_call_later(&loop, &timer, 1, tick, &timer);
    client c = {.host = "127.0.0.1", .port = server->port, .timeout = 7.5};
    CHECK_EQ(run_task(&loop, silent_read_body, &c, sizeof c), TAAL_ETIMEDOUT);
    CHECK_EQ(ticks, 5); /* at 1, 2, 3, 4 and 5 s, while the read waited */
    CHECK(taal_loop_time(&loop) == 7.5);
    taal_loop_close(&loop); /* the silent handler is still asleep: closed with it */
    CHECK_EQ(open_fds(), fds);
}

/* Cancelled while it reads: the stream is as it was, and can be read. */
static int cancelled_read_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    logf_(f, f->st == TAAL_ECANCELLED ? "C" : "c");
    logf_(f, f->stream->rbusy ? "b" : "B");
    taal_stream_write(f->stream, "again", 5);
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, 5, f->n);
    logf_(f, f->st == TAAL_OK && memcmp(f->data, "again", 5) == 0 ? "R" : "r");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

static int opener_body(taal_coro *self) /* connects and leaves the stream in its frame */
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->port);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_read_cancelled_while_it_waits_unhooks_itself_and_the_stream_stays_usable)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", ECHO);
    CHECK(server != NULL);
    taal_task *opener = NULL, *reader = NULL;
    taal_task_create(&loop, opener_body,
                     &(client){.host = "127.0.0.1", .port = server->port}, sizeof(client),
                     NULL, &opener);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(opener)), TAAL_OK);
    taal_stream *stream = ((client *)taal_task_frame(opener))->stream;
    taal_task_release(opener);
    taal_task_create(&loop, cancelled_read_body, &(client){.stream = stream},
                     sizeof(client), NULL, &reader);
    /* until it waits (one more iteration would block: nothing else is to come) */
    for (int i = 0; i < 5 && !stream->rbusy; i++)
        taal_run_once(&loop);
    CHECK(stream->rbusy);
    CHECK(taal_task_cancel(reader));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(reader)), TAAL_OK);
    CHECK_STR(((client *)taal_task_frame(reader))->log, "CBR");
    taal_task_release(reader);
    taal_server_release(server);
    for (int i = 0; i < 20 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static int second_reader_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(two_readers_at_once_is_ebusy_and_closing_wakes_the_reader_with_enotconn)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", SILENT);
    CHECK(server != NULL);
    taal_task *opener = NULL, *a = NULL, *b = NULL;
    taal_task_create(&loop, opener_body,
                     &(client){.host = "127.0.0.1", .port = server->port}, sizeof(client),
                     NULL, &opener);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(opener)), TAAL_OK);
    taal_stream *stream = ((client *)taal_task_frame(opener))->stream;
    taal_task_release(opener);
    taal_task_create(&loop, second_reader_body, &(client){.stream = stream},
                     sizeof(client), NULL, &a);
    taal_task_create(&loop, second_reader_body, &(client){.stream = stream},
                     sizeof(client), NULL, &b);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(b)), TAAL_EBUSY);
    taal_stream_close(stream);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(a)), TAAL_ENOTCONN);
    taal_task_release(a);
    taal_task_release(b);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* A port bound but not listening: connections to it are refused. */
static int closed_port(taal_socket *fd)
{
    struct sockaddr_in in = {0};
    socklen_t len = sizeof in;
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sock_startup();
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    if (*fd == TAAL_INVALID_SOCKET || bind(*fd, (struct sockaddr *)&in, sizeof in) != 0 ||
        getsockname(*fd, (struct sockaddr *)&in, &len) != 0)
        return -1;
    return ntohs(in.sin_port);
}

TEST(a_refused_connection_and_bad_addresses_are_statuses_and_leave_nothing_open)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_socket reserved;
    int port = closed_port(&reserved);
    CHECK(port > 0);
    client c = {.host = "127.0.0.1", .port = port};
    CHECK_EQ(run_task(&loop, connect_body, &c, sizeof c), TAAL_ECONNREFUSED);
    c = (client){.host = "localhost", .port = port}; /* a name: no DNS here */
    CHECK_EQ(run_task(&loop, connect_body, &c, sizeof c), TAAL_EADDR);
    c = (client){.host = "127.0.0.1", .port = 70000};
    CHECK_EQ(run_task(&loop, connect_body, &c, sizeof c), TAAL_EADDR);
    c = (client){.host = NULL, .port = 80};
    CHECK_EQ(run_task(&loop, connect_body, &c, sizeof c), TAAL_EADDR);
    taal_server *server = NULL;
    CHECK_EQ(taal_start_server(&loop, "127.0.0.1", port, handler_body, NULL,
                               sizeof(handler), offsetof(handler, stream), &server),
             TAAL_EADDRINUSE);
    CHECK_EQ(taal_start_server(&loop, "127.0.0.1", 0, handler_body, NULL, sizeof(handler),
                               sizeof(handler), &server),
             TAAL_EINVAL); /* the stream's place outside the frame */
    CHECK(server == NULL);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    sock_close(reserved);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_connect_that_gets_no_answer_times_out_in_a_timeout_scope)
{
    /* A listener with a backlog of one, never accepting: once its queue is
     * full, the kernel drops further SYNs, and a connect waits. */
    int fds = open_fds();
    sock_startup();
    taal_socket lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in in = {0};
    socklen_t len = sizeof in;
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(lfd, (struct sockaddr *)&in, sizeof in) == 0 && listen(lfd, 0) == 0 &&
          getsockname(lfd, (struct sockaddr *)&in, &len) == 0);
    int port = ntohs(in.sin_port);
    taal_loop loop;
    open_loop(&loop);
    int st = TAAL_OK;
    taal_stream *kept[4] = {0};
    int k = 0;
    for (; k < 4; k++) { /* fill the queue, until a connect waits */
        client c = {.host = "127.0.0.1", .port = port, .timeout = 2};
        taal_task *task = NULL;
        taal_task_create(&loop, connect_body, &c, sizeof c, NULL, &task);
        st = taal_run_until_complete(&loop, taal_task_future(task));
        kept[k] = ((client *)taal_task_frame(task))->stream;
        taal_task_release(task);
        if (st != TAAL_OK)
            break;
    }
    CHECK_EQ(st, TAAL_ETIMEDOUT);
    CHECK(kept[k] == NULL); /* the timed-out connect left no stream */
    CHECK(taal_loop_time(&loop) == 2.0);
    for (int i = 0; i < k; i++)
        taal_stream_abort(kept[i]);
    taal_loop_close(&loop);
    sock_close(lfd);
    CHECK_EQ(open_fds(), fds);
}

static void note_nothing(void *data)
{
    (void)data;
}

/* A handler has ended, and the server's callback for it (which closes
 * and lets go of its stream) is still in the ready queue when the loop
 * closes: the close must empty the ready queue before it frees the
 * stream the handle lives in. (ASan saw the close write freed memory.) */
TEST(a_loop_closed_with_a_handlers_callback_still_queued_lets_go_of_it_first)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = serve(&loop, "127.0.0.1", CLOSE_AT_ONCE);
    CHECK(server != NULL);
    client c = {.host = "127.0.0.1", .port = server->port};
    CHECK_EQ(taal_task_create(&loop, connect_body, &c, sizeof c, "client", NULL),
             TAAL_OK);
    taal_timer guard = {0}; /* so that an idle loop jumps to it, never blocks */
    CHECK_EQ(taal_timer_start(&loop, &guard, 1000, note_nothing, NULL), TAAL_OK);
    bool queued = false;
    for (int i = 0; i < 100 && !queued; i++) {
        taal_run_once(&loop);
        if (server->conns.next != &server->conns) {
            taal_stream *s = (taal_stream *)(void *)((char *)server->conns.next -
                                                     offsetof(taal_stream, conn));
            queued = taal_future_done(taal_task_future(s->handler));
        }
    }
    CHECK(queued); /* the handler is done; the server has not heard yet */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(open_fds(), fds);
}

TEST(bad_input_to_streams_is_refused)
{
    CHECK_EQ(taal_stream_write(NULL, "x", 1), TAAL_EINVAL);
    CHECK_EQ(taal_stream_write_eof(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_stream_set_write_limits(NULL, 1, 1, 1), TAAL_EINVAL);
    CHECK_EQ(taal_stream_buffered(NULL), 0);
    CHECK_EQ(taal_stream_pending(NULL), 0);
    CHECK_EQ(taal_stream_consume(NULL, 5), 0);
    CHECK_EQ(taal_stream_peek(NULL, NULL), 0);
    CHECK(!taal_stream_at_eof(NULL));
    taal_stream_close(NULL);
    taal_stream_abort(NULL);
    taal_server_close(NULL);
    taal_server_release(NULL);
    CHECK_EQ(taal_start_server(NULL, "127.0.0.1", 0, handler_body, NULL, sizeof(handler),
                               offsetof(handler, stream), NULL),
             TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_connection_carries_bytes_both_ways_over_ipv4_and_ipv6),
    TEST_ENTRY(a_read_returns_no_bytes_only_at_the_end_of_the_stream_and_then_again),
    TEST_ENTRY(readline_readuntil_readexactly_and_read_as_asyncio_s),
    TEST_ENTRY(two_megabytes_through_partial_sends_and_eagain_arrive_intact),
    TEST_ENTRY(
        drain_waits_above_the_high_water_mark_until_the_low_one_and_the_limit_holds),
    TEST_ENTRY(a_write_of_a_mebibyte_and_five_then_drain_arrives_whole_at_the_peer),
    TEST_ENTRY(a_writer_that_never_drains_is_still_refused_at_the_hard_limit),
    TEST_ENTRY(
        write_limits_set_below_the_backlog_pause_the_stream_and_refuse_writes_until_drained),
    TEST_ENTRY(timers_keep_firing_while_a_read_waits_and_a_read_times_out),
    TEST_ENTRY(
        a_read_cancelled_while_it_waits_unhooks_itself_and_the_stream_stays_usable),
    TEST_ENTRY(two_readers_at_once_is_ebusy_and_closing_wakes_the_reader_with_enotconn),
    TEST_ENTRY(
        a_refused_connection_and_bad_addresses_are_statuses_and_leave_nothing_open),
    TEST_ENTRY(a_connect_that_gets_no_answer_times_out_in_a_timeout_scope),
    TEST_ENTRY(a_loop_closed_with_a_handlers_callback_still_queued_lets_go_of_it_first),
    TEST_ENTRY(bad_input_to_streams_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
