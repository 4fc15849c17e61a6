/*
** test_http_server.c -- chapter 07: the bundled HTTP server against
** clients that misbehave: routes it cannot send, a flood of empty lines,
** connections that stay idle or send their request a byte at a time, more
** connections than it takes, and a client that never reads; through all of
** which a normal client is still answered.
*/
#include "http_support.h"

#include <sys/resource.h>

/* A raw client: connects, writes `request` (`len` bytes, or strlen), and
 * reads what comes back until the server closes, into `out` (at most
 * `cap` - 1 bytes kept, NUL-terminated; `got` counts them all). */
typedef struct raw_client {
    taal_coro co;
    int port;
    const char *request;
    size_t len;
    char *out;
    size_t cap, got, n;
    int st;
    taal_stream *stream;
    char buf[4096];
} raw_client;

static int raw_client_body(taal_coro *self)
{
    raw_client *f = (raw_client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st =
        taal_stream_write(f->stream, f->request, f->len ? f->len : strlen(f->request));
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->buf, sizeof f->buf, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        for (size_t i = 0; i < f->n; i++, f->got++)
            if (f->got + 1 < f->cap)
                f->out[f->got] = f->buf[i];
    }
    if (f->cap > 0)
        f->out[f->got + 1 < f->cap ? f->got : f->cap - 1] = '\0';
    taal_stream_abort(f->stream);
    TAAL_END();
}

/* Serves `routes` and runs one raw client against it: what
 * taal_http_serve() said in *served, what the client read in `out`. */
static void exchange(const taal_http_route *routes, size_t count, const char *request,
                     size_t len, char *out, size_t cap, int *served)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {routes, count, 0, 0, 0, 0};
    taal_server *server = NULL;
    int rc = taal_http_serve(&loop, "127.0.0.1", 0, &site, &server);
    if (rc == TAAL_OK) {
        raw_client c = {
            .port = server->port, .request = request, .len = len, .out = out, .cap = cap};
        CHECK_EQ(run_task(&loop, raw_client_body, &c, sizeof c), TAAL_OK);
        taal_server_release(server);
    }
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
    *served = rc;
}

/* ---- routes it cannot send -------------------------------------------------- */

/* The head of a response is built in a line of 320 bytes: a content type of
 * 300 once made the next snprintf write past its end, on the first request. */
TEST(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused)
{
    static char long_type[300];
    memset(long_type, 'a', sizeof long_type - 1);
    const taal_http_route too_long[] = {{"/", 200, long_type, "x", 0, 0, false}};
    char out[1024];
    int served;
    exchange(too_long, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route injected[] = {
        {"/", 200, "text/plain\r\nSet-Cookie: a=b", "x", 0, 0, false}};
    exchange(injected, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_status[] = {{"/", 42, NULL, "x", 0, 0, false}};
    exchange(no_status, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_body[] = {{"/", 200, NULL, NULL, 0, 0, false}};
    exchange(no_body, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
}

TEST(the_longest_content_type_allowed_is_sent_whole)
{
    static char type[TAAL_HTTP_MAX_CONTENT_TYPE + 1];
    memset(type, 't', TAAL_HTTP_MAX_CONTENT_TYPE);
    const taal_http_route routes[] = {{"/", 200, type, "body", 0, 0, false}};
    char out[1024], want[256];
    int served;
    exchange(routes, 1, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(served, TAAL_OK);
    snprintf(want, sizeof want, "Content-Type: %s\r\n", type);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "\r\n\r\nbody") != NULL);
}

/* ---- a flood of empty lines --------------------------------------------------- */

TEST(a_flood_of_empty_lines_before_a_request_gets_400_and_the_connection_closes)
{
    static char flood[200000]; /* one write: under TAAL_STREAM_MAX_WRITE */
    for (size_t i = 0; i < sizeof flood; i += 2)
        memcpy(flood + i, "\r\n", 2);
    const taal_http_route routes[] = {{"/", 200, NULL, "x", 0, 0, false}};
    char out[256];
    int served;
    exchange(routes, 1, flood, sizeof flood, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
    CHECK(strstr(out, "Connection: close\r\n") != NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused),
    TEST_ENTRY(the_longest_content_type_allowed_is_sent_whole),
    TEST_ENTRY(
        a_flood_of_empty_lines_before_a_request_gets_400_and_the_connection_closes),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
