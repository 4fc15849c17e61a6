/*
** test_io_alloc.c -- chapter 07: out of memory during a client-server
** exchange is an error like any other, and a steady stream allocates
** nothing.
**
** The scenario: an HTTP server and a session with three requests at once
** (a plain body, a chunked one, a 404); then, from a raw server, a POST
** with a header and a body, a redirect, and a body streamed in pieces;
** then an echo of a few lines over a stream. It runs again and again with the n-th
*allocation failing, for
** n = 1, 2, ... until a run reaches none of its failures: every run must
** end (with TAAL_OK or an error, whichever the failure led to), with
** nothing allocated and no descriptor open.
*/
#include "http_support.h"

static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                       taal_check_free};

static const taal_http_route routes[] = {
    {.path = "/", .status = 200, .body = "a plain body\n"},
    {.path = "/c",
     .status = 200,
     .body = "a chunked body\n",
     .repeat = 4,
     .chunked = true},
};

typedef struct echo {
    taal_coro co;
    taal_stream *stream;
    char data[64];
    size_t n;
    int st;
} echo;

static int echo_body(taal_coro *self)
{
    echo *f = (echo *)self;
    TAAL_BEGIN(f);
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        f->st = taal_stream_write(f->stream, f->data, f->n);
        if (f->st != TAAL_OK)
            break;
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

typedef struct scenario {
    taal_coro co;
    taal_http_site site;
    taal_server *http, *echo;
    taal_http_session session;
    bool session_open;
    taal_task *gets[3];
    taal_server *raw;
    taal_http_request req;
    taal_http_read rd;
    int rst, raw_ok; /* how many of the raw server's three exchanges succeeded */
    taal_stream *stream;
    const char *host;
    char data[64];
    size_t n;
    int i, st, rounds;
    long allocs_in_rounds; /* allocations while the echo ran warm */
} scenario;

static const char *const urls[] = {"http://s.example/", "http://s.example/c",
                                   "http://s.example/missing"};

static int scenario_body(taal_coro *self)
{
    scenario *f = (scenario *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    f->site = (taal_http_site){.routes = routes, .count = 2};
    f->st = taal_http_serve(loop, "127.0.0.1", 0, &f->site, &f->http);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = taal_http_session_open(&f->session);
    f->session_open = f->st == TAAL_OK;
    if (f->st == TAAL_OK)
        f->st =
            taal_http_session_map(&f->session, "s.example", "127.0.0.1", f->http->port);
    for (f->i = 0; f->i < 3 && f->st == TAAL_OK; f->i++)
        f->st = taal_task_create(loop, one_get_body,
                                 &(one_get){.session = &f->session, .url = urls[f->i]},
                                 sizeof(one_get), NULL, &f->gets[f->i]);
    for (f->i = 0; f->i < 3; f->i++) {
        if (f->gets[f->i] == NULL)
            continue;
        TAAL_AWAIT_TASK_STATUS(f->st, f->gets[f->i]);
        taal_http_get_free(&((one_get *)taal_task_frame(f->gets[f->i]))->get);
        taal_task_release(f->gets[f->i]);
    }
    f->raw = f->session_open ? raw_server(loop) : NULL;
    if (f->raw != NULL && taal_http_session_map(&f->session, "r.example", "127.0.0.1",
                                                f->raw->port) == TAAL_OK) {
        f->rst =
            taal_http_request_init(&f->req, &f->session, "POST", "http://r.example/echo");
        if (f->rst == TAAL_OK)
            f->rst = taal_http_request_header(&f->req, "X-A", "b");
        if (f->rst == TAAL_OK)
            f->rst = taal_http_request_body(&f->req, "{}", 2);
        if (f->rst == TAAL_OK)
            TAAL_AWAIT_STATUS(f->rst, &f->req);
        f->raw_ok += f->rst == TAAL_OK && strstr(f->req.body, "X-A: b") != NULL;
        taal_http_get_free(&f->req);
        taal_http_get_init(&f->req, &f->session, "http://r.example/r302");
        TAAL_AWAIT_STATUS(f->rst, &f->req);
        f->raw_ok += f->rst == TAAL_OK && strcmp(f->req.body, "hello") == 0;
        taal_http_get_free(&f->req);
        taal_http_get_init(&f->req, &f->session, "http://r.example/chunked");
        f->req.stream_body = true;
        TAAL_AWAIT_STATUS(f->rst, &f->req);
        while (f->rst == TAAL_OK) {
            taal_http_read_init(&f->rd, &f->req);
            TAAL_AWAIT_STATUS(f->rst, &f->rd);
            if (f->rd.end) {
                f->raw_ok++;
                break;
            }
        }
        taal_http_get_free(&f->req);
    }
    if (f->session_open)
        taal_http_session_close(&f->session); /* the raw server's handlers end */
    if (f->raw != NULL)
        TAAL_SERVER_CLOSE_STATUS(f->rst, f->raw);
    TAAL_SERVER_CLOSE_STATUS(f->st, f->http);

    /* an echo over a stream: rounds of a line there and back */
    f->host = "127.0.0.1";
    f->st = taal_start_server(loop, f->host, 0, echo_body, NULL, sizeof(echo),
                              offsetof(echo, stream), &f->echo);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->echo->port);
    for (f->i = 0; f->i < f->rounds && f->st == TAAL_OK; f->i++) {
        if (f->i == 2) /* warm: the connections and buffers exist */
            f->allocs_in_rounds = taal_check_alloc.attempts;
        f->st = taal_stream_write(f->stream, "a line\n", 7);
        if (f->st == TAAL_OK)
            TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    }
    f->allocs_in_rounds = taal_check_alloc.attempts - f->allocs_in_rounds;
    if (f->stream != NULL)
        TAAL_STREAM_CLOSE_STATUS(f->i, f->stream);
    TAAL_SERVER_CLOSE_STATUS(f->i, f->echo);
    TAAL_FAIL(f->st);
    TAAL_END();
}

static void ignore_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    (void)report;
}

static int raw_ok;

static int run_scenario(int rounds, long *allocs_in_rounds)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = ignore_report};
    taal_task *task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, scenario_body, &(scenario){.rounds = rounds},
                              sizeof(scenario), NULL, &task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(task));
    if (task != NULL && allocs_in_rounds != NULL)
        *allocs_in_rounds = ((scenario *)taal_task_frame(task))->allocs_in_rounds;
    if (task != NULL)
        raw_ok = ((scenario *)taal_task_frame(task))->raw_ok;
    taal_task_release(task);
    taal_loop_close(&loop);
    return rc;
}

TEST(every_allocation_failure_in_an_exchange_ends_cleanly_with_nothing_left)
{
    int fds = open_fds();
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    int failures = 0;
    for (long n = 1; n < 400; n++) {
        taal_check_alloc_reset(n);
        int rc = run_scenario(5, NULL);
        if (taal_check_alloc_live() != 0)
            fprintf(stderr, "allocation %ld failed: %ld blocks left (%s)\n", n,
                    taal_check_alloc_live(), taal_strerror(rc));
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (open_fds() != fds)
            fprintf(stderr, "allocation %ld failed: a descriptor stayed open\n", n);
        CHECK_EQ(open_fds(), fds);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            CHECK_EQ(rc, TAAL_OK);
            break;
        }
        CHECK(rc != TAAL_SUSPENDED);
        failures++;
    }
    taal_set_allocator(NULL);
    fprintf(stderr, "%d allocations, each failed in turn\n", failures);
    CHECK(failures > 10);
}

TEST(a_warm_stream_allocates_nothing_per_read_or_write)
{
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    taal_check_alloc_reset(0);
    long allocs = -1;
    CHECK_EQ(run_scenario(200, &allocs), TAAL_OK);
    CHECK_EQ(allocs, 0); /* 198 lines there and back, and not one allocation */
    CHECK_EQ(raw_ok, 3); /* the POST, the redirect and the stream all went */
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_allocation_failure_in_an_exchange_ends_cleanly_with_nothing_left),
    TEST_ENTRY(a_warm_stream_allocates_nothing_per_read_or_write),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
