/*
** test_pressure.c -- lab 07, exercise 3: a write past the hard limit is
** refused; above the high-water mark a stream is paused and drain waits,
** until the writable callback has sent it down to the low-water mark.
*/
#include "http_support.h"

/* A server that reads nothing for `delay` seconds, then everything. */
typedef struct sleeper {
    taal_coro co;
    taal_stream *stream;
    double delay;
    char data[65536];
    size_t n;
    int st;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->delay);
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

typedef struct writer {
    taal_coro co;
    int port;
    taal_stream *stream;
    char data[40000];
    char log[32];
    size_t before;
    int st;
} writer;

static void note(writer *f, bool ok, const char *yes, const char *no)
{
    strcat(f->log, ok ? yes : no);
}

static int writer_body(taal_coro *self)
{
    writer *f = (writer *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_set_write_limits(f->stream, 8192, 1024, 32768);
    memset(f->data, 'p', sizeof f->data);
    while (!f->stream->paused && taal_stream_pending(f->stream) <= 8192) {
        f->st = taal_stream_write(f->stream, f->data, 4096);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    note(f, f->stream->paused, "P", "p"); /* paused past the high-water mark */
    f->before = taal_stream_pending(f->stream);
    note(f, taal_stream_write(f->stream, f->data, 32768) == TAAL_EWFULL, "F", "f");
    note(f, taal_stream_pending(f->stream) == f->before, "N", "n"); /* nothing taken */
    TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    note(f, f->st == TAAL_OK && taal_loop_time(taal_running_loop()) >= 5, "D", "d");
    note(f, taal_stream_pending(f->stream) <= 1024 && !f->stream->paused, "L", "l");
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

TEST(a_writer_is_paused_past_high_water_refused_past_the_limit_and_drain_waits_for_low)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_start_server(&loop, "127.0.0.1", 0, sleeper_body,
                               &(sleeper){.delay = 5}, sizeof(sleeper),
                               offsetof(sleeper, stream), &server),
             TAAL_OK);
    taal_task *task = NULL;
    taal_task_create(&loop, writer_body, &(writer){.port = server->port}, sizeof(writer),
                     NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    CHECK_STR(((writer *)taal_task_frame(task))->log, "PFNDL");
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static char block[65536];
static const taal_http_route big[] = {{.path = "/big",
                                       .status = 200,
                                       .body = block,
                                       .length = sizeof block,
                                       .repeat = 128}};

typedef struct lazy {
    taal_coro co;
    int port;
    taal_stream *stream;
    char line[128];
    size_t n;
    int st;
} lazy;

static int lazy_body(taal_coro *self)
{
    lazy *f = (lazy *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 30);
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->line, sizeof f->line, f->n);
    TAAL_SLEEP(30);
    taal_stream_abort(f->stream);
    TAAL_END();
}

TEST(a_server_whose_client_does_not_read_waits_in_drain_with_bounded_memory)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {.routes = big, .count = 1};
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, &site, &server), TAAL_OK);
    CHECK_EQ(run_task(&loop, lazy_body, &(lazy){.port = server->port}, sizeof(lazy)),
             TAAL_OK);
    CHECK(site.drains > 0);
    CHECK(site.peak <= TAAL_STREAM_HIGH_WATER + 16384);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(
        a_writer_is_paused_past_high_water_refused_past_the_limit_and_drain_waits_for_low),
    TEST_ENTRY(a_server_whose_client_does_not_read_waits_in_drain_with_bounded_memory),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
