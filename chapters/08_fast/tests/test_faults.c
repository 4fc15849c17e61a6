/*
** test_faults.c -- chapter 07: every fault a peer can commit gets a
** documented status, and leaves nothing behind: a server that hangs up in
** any state of its response, a malformed or oversized response, a server
** that never answers, a refused connection, running out of descriptors on
** either side, and a client that does not read.
*/
#include "http_support.h"

#ifndef _WIN32
#include <sys/resource.h>
#endif

TEST(a_hang_up_in_every_state_of_a_chunked_response_is_the_end_of_stream)
{
    int fds = open_fds();
    size_t total = sizeof chunked_response - 1;
    char urls[80][32];
    for (size_t cut = 0; cut <= total; cut += 8) {
        /* eight cuts per run, each on a connection of its own (the server
         * hangs up after each) */
        const char *batch[8];
        int count = 0;
        for (size_t c = cut; c < cut + 8 && c <= total; c++) {
            snprintf(urls[count], sizeof urls[count], "http://t.example/cut/%zu", c);
            batch[count] = urls[count];
            count++;
        }
        result r[8];
        int leaks;
        CHECK_EQ(fetch_all(batch, 1, NULL, r, &leaks), TAAL_OK);
        for (int i = 1; i < count; i++) { /* one at a time: each its connection */
            CHECK_EQ(fetch_all(batch + i, 1, NULL, r + i, &leaks), TAAL_OK);
            CHECK_EQ(leaks, 0);
        }
        for (int i = 0; i < count; i++) {
            size_t c = cut + (size_t)i;
            if (c < total) {
                if (r[i].st != TAAL_EEOF)
                    fprintf(stderr, "cut at %zu: %s\n", c, taal_strerror(r[i].st));
                CHECK_EQ(r[i].st, TAAL_EEOF);
                CHECK_EQ(r[i].http_error, HTTP_EEOF);
            } else {
                CHECK_EQ(r[i].st, TAAL_OK);
                CHECK_STR(r[i].body, "hello");
            }
        }
    }
    CHECK_EQ(open_fds(), fds);
}

TEST(a_hang_up_in_a_content_length_body_is_the_end_of_stream)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/cutlen/40"}; /* 2 of its 5 bytes */
    result r[1];
    CHECK_EQ(fetch_all(urls, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_malformed_or_oversized_response_is_refused_and_ends_the_connection)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/malformed", "http://t.example/huge",
                          "http://t.example/longheader", "http://t.example/ok"};
    result r[4];
    for (int i = 0; i < 4; i++) /* one at a time: each error ends its connection */
        CHECK_EQ(fetch_all(urls + i, 1, NULL, r + i, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EPROTO);
    CHECK_EQ(r[0].http_error, HTTP_ESTATUS_CODE);
    CHECK_EQ(r[1].st, TAAL_ELIMIT);
    CHECK_EQ(r[1].http_error, HTTP_EBODY_TOO_LARGE);
    CHECK_EQ(r[2].st, TAAL_ELIMIT);
    CHECK_EQ(r[2].http_error, HTTP_EHEADER_TOO_LONG);
    CHECK_EQ(r[3].st, TAAL_OK);
    /* in one session: the error ends the connection; the GET pipelined
     * behind it on that connection never had its response, and is sent
     * again on a new one */
    const char *two[] = {"http://t.example/malformed", "http://t.example/ok"};
    CHECK_EQ(fetch_piped(two, 2, NULL, NULL, 2, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EPROTO);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* A GET of `url` in a timeout scope of `seconds`. */
typedef struct timed_get {
    taal_coro co;
    int port;
    const char *url;
    double seconds;
    taal_http_session session;
    taal_http_get get;
    taal_timeout scope;
    int st;
} timed_get;

static int timed_get_body(taal_coro *self)
{
    timed_get *f = (timed_get *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    taal_http_get_init(&f->get, &f->session, f->url);
    TAAL_AWAIT_TIMEOUT_STATUS(f->st, &f->scope, f->seconds, &f->get);
    taal_http_get_free(&f->get);
    taal_http_session_close(&f->session);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_server_that_never_answers_times_out_and_one_that_is_not_there_refuses)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    CHECK(server != NULL);
    timed_get t = {.port = server->port, .url = "http://t.example/silent", .seconds = 3};
    CHECK_EQ(run_task(&loop, timed_get_body, &t, sizeof t), TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) == 3.0);
    int port = server->port;
    taal_server_release(server);
    taal_loop_close(&loop); /* the silent handler goes with the loop */
    open_loop(&loop);
    t = (timed_get){.port = port, .url = "http://t.example/ok", .seconds = 3};
    CHECK_EQ(run_task(&loop, timed_get_body, &t, sizeof t), TAAL_ECONNREFUSED);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

#ifndef _WIN32
TEST(out_of_descriptors_a_connect_fails_with_emfile_and_a_server_pauses_then_resumes)
{
    /* valgrind keeps descriptor limits of its own (it reserves the top of
     * the range), so that setrlimit() does not mean the same under it */
    const char *preload = getenv("LD_PRELOAD");
    if (preload != NULL && strstr(preload, "vgpreload") != NULL) {
        fprintf(stderr, "skipped under valgrind: it emulates RLIMIT_NOFILE\n");
        return;
    }
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop); /* its socket and the loop's poller */
    CHECK(server != NULL);
    int now = dup(0); /* the lowest free descriptor: the next socket's */
    close(now);
    /* the client's socket is the last descriptor: the server cannot accept */
    struct rlimit tight = {(rlim_t)now + 1, old.rlim_max};
    CHECK(setrlimit(RLIMIT_NOFILE, &tight) == 0);
    timed_get t = {.port = server->port, .url = "http://t.example/ok", .seconds = 1};
    uint64_t polls = loop.io_polls;
    CHECK_EQ(run_task(&loop, timed_get_body, &t, sizeof t), TAAL_ETIMEDOUT);
    CHECK_EQ(server->accept_error, TAAL_EMFILE);
    CHECK_EQ(server->accepted, 0);
    CHECK(loop.io_polls - polls < 40); /* it paused; a spinning accept polls thousands */
    /* one descriptor fewer still: the connect itself fails */
    tight.rlim_cur = (rlim_t)now;
    CHECK(setrlimit(RLIMIT_NOFILE, &tight) == 0);
    t = (timed_get){.port = server->port, .url = "http://t.example/ok", .seconds = 1};
    CHECK_EQ(run_task(&loop, timed_get_body, &t, sizeof t), TAAL_EMFILE);
    CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
    t = (timed_get){.port = server->port, .url = "http://t.example/ok", .seconds = 1};
    CHECK_EQ(run_task(&loop, timed_get_body, &t, sizeof t), TAAL_OK); /* it resumed */
    CHECK(server->accepted >= 1);
    taal_server_release(server);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}
#else
SKIPPED_TEST(
    out_of_descriptors_a_connect_fails_with_emfile_and_a_server_pauses_then_resumes,
    "Windows has no descriptor limit to lower (RLIMIT_NOFILE): sockets are "
    "handles, about 16 million of them")
#endif

/* ---- a client that does not read -------------------------------------------- */

static char block[65536];
static const taal_http_route big[] = {{.path = "/big",
                                       .status = 200,
                                       .body = block,
                                       .length = sizeof block,
                                       .repeat = 256}};

typedef struct sluggard {
    taal_coro co;
    int port;
    taal_stream *stream;
    char line[128];
    size_t n;
    int st;
} sluggard;

static int sluggard_body(taal_coro *self)
{
    sluggard *f = (sluggard *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 30);
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->line, sizeof f->line, f->n);
    TAAL_SLEEP(60); /* a minute without reading */
    taal_stream_abort(f->stream);
    TAAL_END();
}

TEST(a_client_that_does_not_read_holds_the_server_in_drain_with_bounded_memory)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {.routes = big, .count = 1};
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, &site, &server), TAAL_OK);
    sluggard s = {.port = server->port};
    CHECK_EQ(run_task(&loop, sluggard_body, &s, sizeof s), TAAL_OK);
    CHECK(site.drains > 0);
    CHECK(site.peak <= TAAL_STREAM_HIGH_WATER + 16384); /* not 16 MiB */
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0); /* the handler saw the reset and ended */
    CHECK(site.last_error == TAAL_ECONNRESET || site.last_error == TAAL_EPIPE);
    CHECK_EQ(site.requests, 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_hang_up_in_every_state_of_a_chunked_response_is_the_end_of_stream),
    TEST_ENTRY(a_hang_up_in_a_content_length_body_is_the_end_of_stream),
    TEST_ENTRY(a_malformed_or_oversized_response_is_refused_and_ends_the_connection),
    TEST_ENTRY(a_server_that_never_answers_times_out_and_one_that_is_not_there_refuses),
    TEST_ENTRY(
        out_of_descriptors_a_connect_fails_with_emfile_and_a_server_pauses_then_resumes),
    TEST_ENTRY(a_client_that_does_not_read_holds_the_server_in_drain_with_bounded_memory),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
