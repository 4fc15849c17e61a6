/*
** test_http_client.c -- chapter 07: the HTTP client session against the
** chapter's own server and a raw one: bodies by length and by chunks,
** status codes, one keep-alive connection per host, pipelining in order,
** requests given up while in line, and the session as the manager of an
** `async with` block.
*/
#include "http_support.h"

static const char home[] = "home page\n";
static char big[200000];
static const taal_http_route routes[] = {
    {.path = "/", .status = 200, .content_type = "text/plain", .body = home},
    {.path = "/chunks",
     .status = 200,
     .content_type = "text/plain",
     .body = home,
     .repeat = 3,
     .chunked = true},
    {.path = "/big", .status = 200, .body = big, .length = sizeof big},
};

typedef struct session_test {
    taal_coro co;
    int port;
    const char *urls[6];
    int count;
    taal_http_session session;
    taal_task *tasks[6];
    int st[6];
    size_t len[6];
    int code[6];
    int i, rc;
} session_test;

static int session_test_body(taal_coro *self)
{
    session_test *f = (session_test *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "site.example", "127.0.0.1", f->port);
    for (f->i = 0; f->i < f->count; f->i++)
        taal_task_create(taal_running_loop(), one_get_body,
                         &(one_get){.session = &f->session, .url = f->urls[f->i]},
                         sizeof(one_get), NULL, &f->tasks[f->i]);
    for (f->i = 0; f->i < f->count; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st[f->i], f->tasks[f->i]);
        one_get *g = taal_task_frame(f->tasks[f->i]);
        f->len[f->i] = g->get.body_len;
        f->code[f->i] = g->get.status_code;
        if (g->get.body_len > 0 && g->get.body[g->get.body_len] != '\0')
            f->st[f->i] = TAAL_EUSER; /* not NUL-terminated */
        taal_http_get_free(&g->get);
        taal_task_release(f->tasks[f->i]);
    }
    f->rc = taal_http_session_close(&f->session);
    TAAL_END();
}

TEST(many_requests_at_once_share_one_keep_alive_connection_and_get_their_own_responses)
{
    int fds = open_fds();
    memset(big, 'b', sizeof big);
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {.routes = routes, .count = 3};
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, &site, &server), TAAL_OK);
    session_test t = {.port = server->port,
                      .count = 6,
                      .urls = {"http://site.example/", "http://site.example/big",
                               "http://site.example/chunks",
                               "http://site.example/nothing", "http://elsewhere.example/",
                               "ftp://site.example/"}};
    taal_task *task = NULL;
    taal_task_create(&loop, session_test_body, &t, sizeof t, NULL, &task);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    session_test *r = taal_task_frame(task);
    CHECK_EQ(r->st[0], TAAL_OK);
    CHECK_EQ(r->code[0], 200);
    CHECK_EQ(r->len[0], strlen(home));
    CHECK_EQ(r->st[1], TAAL_OK);
    CHECK_EQ(r->len[1], sizeof big);
    CHECK_EQ(r->st[2], TAAL_OK);
    CHECK_EQ(r->len[2], 3 * strlen(home)); /* chunked, three pieces */
    CHECK_EQ(r->st[3], TAAL_OK);           /* a 404 is a response */
    CHECK_EQ(r->code[3], 404);
    CHECK_EQ(r->len[3], strlen("not found\n"));
    CHECK_EQ(r->st[4], TAAL_EADDR); /* a host the session was not told of */
    CHECK_EQ(r->st[5], TAAL_EINVAL);
    CHECK_EQ(r->rc, TAAL_OK);
    CHECK_EQ(server->accepted, 1); /* one connection for all four */
    CHECK_EQ(site.requests, 4);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 20 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

TEST(pipelined_responses_are_read_by_the_requests_they_answer_in_order)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/3", "http://t.example/chunked",
                          "http://t.example/ok", "http://t.example/slow/1"};
    result r[4];
    CHECK_EQ(fetch_piped(urls, 4, NULL, NULL, 4, r, &leaks), TAAL_OK);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(r[i].st, TAAL_OK);
        CHECK_STR(r[i].body, "hello");
    }
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_request_given_up_in_line_ends_the_connection_where_its_response_comes)
{
    /* Pipelined: /slow/5 is sent first and answered at 5 s; the second
     * request waits in line behind it and is cancelled at 1 s; the third
     * must not get the second's response: its reader ends the connection
     * there, and, a GET, it is sent again on a new one. */
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/5", "http://t.example/chunked",
                          "http://t.example/cutlen/200"};
    double cancel_at[] = {0, 1, 0};
    result r[3];
    CHECK_EQ(fetch_piped(urls, 3, cancel_at, NULL, 3, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_ECANCELLED);
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_request_given_up_while_it_reads_ends_its_connection)
{
    /* The first request holds the turn, reading, when it is cancelled at
     * 2 s; its response would come at 3 s. The connection goes with it, and
     * the second request, pipelined behind, is sent again on a new one. */
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/3", "http://t.example/ok"};
    double cancel_at[] = {2, 0};
    result r[2];
    CHECK_EQ(fetch_piped(urls, 2, cancel_at, NULL, 2, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_ECANCELLED);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* The server answers the first of three pipelined GETs with "Connection:
 * close" and hangs up: it never processed the other two (RFC 9112 9.6), so
 * they go again on a new connection, and each gets its own response. */
TEST(a_response_that_closes_the_connection_sends_those_behind_it_again)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/close", "http://t.example/ok",
                          "http://t.example/other"};
    result r[3];
    CHECK_EQ(fetch_piped(urls, 3, NULL, NULL, 3, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_STR(r[0].body, "ok");
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "hello");
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "world");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* ---- the write of a request fails while another reads its response ------- */

typedef struct broken_write {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_task *tasks[2];
    result r[2];
    int i, st;
} broken_write;

static int broken_write_body(taal_coro *self)
{
    broken_write *f = (broken_write *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    taal_task_create(taal_running_loop(), one_get_body,
                     &(one_get){.session = &f->session, .url = "http://t.example/slow/2"},
                     sizeof(one_get), NULL, &f->tasks[0]);
    TAAL_SLEEP(1);
    /* The first request waits for its answer, due at 2 s. Its connection
     * can no longer send: the next write fails with EPIPE, as it does once
     * the server has closed and reset. */
    shutdown(f->session.hosts[0]->stream->io.fd, SHUT_WR);
    taal_task_create(taal_running_loop(), one_get_body,
                     &(one_get){.session = &f->session, .url = "http://t.example/other"},
                     sizeof(one_get), NULL, &f->tasks[1]);
    for (f->i = 0; f->i < 2; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, f->tasks[f->i]);
        one_get *g = taal_task_frame(f->tasks[f->i]);
        f->r[f->i].st = f->st;
        snprintf(f->r[f->i].body, sizeof f->r[f->i].body, "%s",
                 g->get.body ? g->get.body : "");
        taal_http_get_free(&g->get);
        taal_task_release(f->tasks[f->i]);
    }
    taal_http_session_close(&f->session);
    TAAL_END();
}

/* A failed write used to abort the connection under the request reading
 * from it, which then failed although its response came. Now the reader
 * gets its response, and the request whose write failed, which sent
 * nothing, goes on a new connection. */
TEST(a_write_that_fails_leaves_the_reader_its_response_and_goes_on_a_new_connection)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, broken_write_body,
                              &(broken_write){.port = server->port}, sizeof(broken_write),
                              NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    broken_write *t = taal_task_frame(task);
    CHECK_EQ(t->r[0].st, TAAL_OK);
    CHECK_STR(t->r[0].body, "hello");
    CHECK_EQ(t->r[1].st, TAAL_OK);
    CHECK_STR(t->r[1].body, "world");
    CHECK_EQ(server->accepted, 2);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* ---- servers that send what they should not --------------------------------- */

/* 100 Continue and 103 Early Hints come before the final response: the
 * request reads on to its own, and the next request gets its own too. */
TEST(interim_responses_are_skipped_and_the_final_one_is_the_requests)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/early", "http://t.example/other"};
    result r[2];
    CHECK_EQ(fetch_all(urls, 2, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[0].code, 200);
    CHECK_STR(r[0].body, "hello");
    CHECK_STR(r[0].headers, "Content-Length: 5\nX-Final: yes\n"); /* no Link */
    CHECK_STR(r[0].x_final, "yes");
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "world");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* The request pipelined behind it never had its response; a GET, it is
 * sent again on a new connection (a POST would fail, TAAL_ECONNABORTED). */
TEST(an_unasked_switch_of_protocols_is_an_error_and_ends_the_connection)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/switch", "http://t.example/ok"};
    result r[2];
    CHECK_EQ(fetch_piped(urls, 2, NULL, NULL, 2, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EPROTO);
    CHECK_EQ(r[0].http_error, HTTP_ESTATUS_CODE);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* Bytes after the end of a body (past its Content-Length, or any at all
 * after a 204 or 304) are read as the start of the next response: a
 * request pipelined behind gets TAAL_EPROTO, never them as its body; a
 * request sent after finds the connection closed, since nobody had asked
 * for those bytes, and gets its own response on a new one. */
TEST(bytes_past_the_end_of_a_body_are_never_a_response_to_the_next_request)
{
    static const char *const paths[] = {"http://t.example/extra",
                                        "http://t.example/nocontent",
                                        "http://t.example/notmodified"};
    static const int codes[] = {200, 204, 304};
    for (int i = 0; i < 3; i++) {
        int fds = open_fds(), leaks;
        const char *urls[] = {paths[i], "http://t.example/other"};
        result r[2];
        CHECK_EQ(fetch_piped(urls, 2, NULL, NULL, 2, r, &leaks), TAAL_OK);
        CHECK_EQ(r[0].st, TAAL_OK);
        CHECK_EQ(r[0].code, codes[i]);
        CHECK_STR(r[0].body, i == 0 ? "hello" : "");
        CHECK_EQ(r[1].st, TAAL_EPROTO); /* pipelined behind */
        double later[] = {0, 1};
        CHECK_EQ(fetch_all_at(urls, 2, NULL, later, r, &leaks), TAAL_OK);
        CHECK_EQ(r[0].st, TAAL_OK);
        CHECK_EQ(r[1].st, TAAL_OK); /* sent after: a new connection */
        CHECK_STR(r[1].body, "world");
        CHECK_EQ(leaks, 0);
        CHECK_EQ(open_fds(), fds);
    }
}

TEST(a_body_that_never_ends_stops_at_the_sessions_bound)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/forever"};
    result r[1];
    CHECK_EQ(fetch_all(urls, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_ELIMIT);
    CHECK_EQ(r[0].http_error, HTTP_EBODY_TOO_LARGE);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_responses_headers_are_kept_in_order_and_found_ignoring_case)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/chunked"};
    result r[1];
    CHECK_EQ(fetch_all(urls, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    /* the trailer (T: v) is not a header */
    CHECK_STR(r[0].headers, "Transfer-Encoding: chunked\nX-A: b\n");
    CHECK_STR(r[0].x_final, "");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
    taal_http_get none = {0};
    const char *name = "x", *value = "y";
    CHECK_EQ(taal_http_get_header_count(&none), 0);
    CHECK(!taal_http_get_header_at(&none, 0, &name, &value));
    CHECK(name == NULL && value == NULL);
    CHECK(taal_http_get_header(&none, "x-a") == NULL);
    CHECK(taal_http_get_header(NULL, "x-a") == NULL);
    CHECK_EQ(taal_http_get_header_count(NULL), 0);
}

/* ---- URLs ---------------------------------------------------------------- */

/* Issue 25, defect 1: a CR/LF in a URL wrote a second request into the
 * first one's line, and every later response went to the wrong request.
 * It is refused before anything is written: no connection is even opened,
 * and the next request, sent later, gets its own response. */
TEST(a_url_with_a_control_byte_is_refused_before_anything_is_written)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/ok HTTP/1.1\r\nHost: x\r\n\r\nGET /other",
                          "http://t.example/echo\n", "http://t.example/echo\x7f",
                          "http://t.example/echo\t", "http://t.example/other"};
    double later[] = {0, 0, 0, 0, 1};
    result r[5];
    CHECK_EQ(fetch_all_at(urls, 5, NULL, later, r, &leaks), TAAL_OK);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(r[i].st, TAAL_EINVAL);
        CHECK_EQ(r[i].code, 0);
    }
    CHECK_EQ(r[4].st, TAAL_OK);
    CHECK_STR(r[4].body, "world");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* What the raw server's /echo saw as the request line. */
static void request_line(const result *r, char *line, size_t size)
{
    size_t n = strcspn(r->body, "\r");
    snprintf(line, size, "%.*s", (int)n, r->body);
}

/* Bytes a request line cannot carry as they are go as %XX; a fragment is
 * never sent; a query without a path gets "/"; the scheme and the host are
 * matched ignoring case, and ":80" is the host without a port. */
TEST(a_url_is_sent_as_a_request_target_that_carries_it_exactly)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {
        "http://t.example/echo/a b\"<>\\^`{|}\xc3\xa9?q=1 2&r=%41#frag ment",
        "HTTP://T.Example:80?q",
        "Http://t.EXAMPLE:/echo#",
        "http://t.example:81/echo",
        "http://user@t.example/echo",
        "http://user:pw@t.example/echo",
        "http:/t.example/echo",
        "http://t.example@evil.example/echo",
    };
    result r[8];
    char line[256];
    CHECK_EQ(fetch_all(urls, 8, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    request_line(&r[0], line, sizeof line);
    CHECK_STR(line,
              "GET /echo/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D%C3%A9?q=1%202&r=%41 HTTP/1.1");
    CHECK_EQ(r[1].st, TAAL_OK);
    request_line(&r[1], line, sizeof line);
    CHECK_STR(line, "GET /?q HTTP/1.1");
    CHECK_EQ(r[2].st, TAAL_OK);
    request_line(&r[2], line, sizeof line);
    CHECK_STR(line, "GET /echo HTTP/1.1");
    CHECK(strstr(r[2].body, "\r\nHost: t.example\r\n") != NULL);
    CHECK_EQ(r[3].st, TAAL_EADDR); /* another port is another host */
    for (int i = 4; i < 8; i++)
        CHECK_EQ(r[i].st, TAAL_EINVAL); /* userinfo (4, 5, 7); a bad scheme (6) */
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* The request is allocated to its size: a path of 5,000 bytes goes (the old
 * 320-byte buffer refused 290); a head over TAAL_HTTP_MAX_REQUEST_HEAD is
 * refused, before anything is written. */
TEST(a_long_url_is_sent_whole_and_one_over_the_bound_is_refused)
{
    static char longer[6000], over[TAAL_HTTP_MAX_REQUEST_HEAD + 100];
    int fds = open_fds(), leaks;
    snprintf(longer, sizeof longer, "http://t.example/echo/");
    memset(longer + strlen(longer), 'p', 5000);
    snprintf(over, sizeof over, "http://t.example/echo/");
    memset(over + strlen(over), 'p', TAAL_HTTP_MAX_REQUEST_HEAD);
    const char *urls[] = {longer, over, "http://t.example/other"};
    result r[3];
    CHECK_EQ(fetch_all(urls, 3, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[0].code, 200);
    CHECK(strncmp(r[0].body, "GET /echo/pppp", 14) == 0);
    CHECK_EQ(r[1].st, TAAL_EINVAL);
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "world");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* Issue 25, defect 6 (client): a failed request said code=200 with
 * TAAL_ELIMIT; and a bound raised after the host was mapped was ignored.
 * Now a failed request has no status, headers or body, and the session's
 * limits are read when each response starts. */
typedef struct limits_test {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_http_get get;
    int st[2], code[2];
    size_t header_count[2], len[2];
} limits_test;

static int limits_test_body(taal_coro *self)
{
    limits_test *f = (limits_test *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    f->session.limits.max_body = 4; /* "hello" is one byte over */
    taal_http_get_init(&f->get, &f->session, "http://t.example/ok");
    TAAL_AWAIT_STATUS(f->st[0], &f->get);
    f->code[0] = f->get.status_code;
    f->header_count[0] = taal_http_get_header_count(&f->get);
    f->len[0] = f->get.body_len + (f->get.body != NULL);
    taal_http_get_free(&f->get);
    f->session.limits.max_body = 5;
    taal_http_get_init(&f->get, &f->session, "http://t.example/ok");
    TAAL_AWAIT_STATUS(f->st[1], &f->get);
    f->code[1] = f->get.status_code;
    f->len[1] = f->get.body_len;
    taal_http_get_free(&f->get);
    taal_http_session_close(&f->session);
    TAAL_END();
}

TEST(a_failed_request_has_no_status_and_the_sessions_limits_are_read_per_response)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, limits_test_body,
                              &(limits_test){.port = server->port}, sizeof(limits_test),
                              NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    limits_test *t = taal_task_frame(task);
    CHECK_EQ(t->st[0], TAAL_ELIMIT);
    CHECK_EQ(t->code[0], 0);
    CHECK_EQ(t->header_count[0], 0);
    CHECK_EQ(t->len[0], 0);
    CHECK_EQ(t->st[1], TAAL_OK);
    CHECK_EQ(t->code[1], 200);
    CHECK_EQ(t->len[1], 5);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* A session knows as many hosts as memory allows (it once stopped at 8,
 * with TAAL_EFULL): 100 names, all at the raw server, each reachable by
 * its own name, and every host freed by the close (ASan, valgrind). */
typedef struct many_hosts {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_http_get get;
    int map_failed, i, st[3], code[3];
    char url[64];
} many_hosts;

static int many_hosts_body(taal_coro *self)
{
    many_hosts *f = (many_hosts *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    for (f->i = 0; f->i < 100; f->i++) {
        char name[32];
        snprintf(name, sizeof name, "h%d.example", f->i);
        if (taal_http_session_map(&f->session, name, "127.0.0.1", f->port) != TAAL_OK)
            f->map_failed++;
    }
    for (f->i = 0; f->i < 3; f->i++) {
        snprintf(f->url, sizeof f->url, "http://H%d.example/ok",
                 (int[]){0, 57, 99}[f->i]);
        taal_http_get_init(&f->get, &f->session, f->url);
        TAAL_AWAIT_STATUS(f->st[f->i], &f->get);
        f->code[f->i] = f->get.status_code;
        taal_http_get_free(&f->get);
    }
    taal_http_session_close(&f->session);
    TAAL_END();
}

TEST(a_session_knows_a_hundred_hosts_and_frees_them_all)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, many_hosts_body, &(many_hosts){.port = server->port},
                              sizeof(many_hosts), NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    many_hosts *t = taal_task_frame(task);
    CHECK_EQ(t->map_failed, 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(t->st[i], TAAL_OK);
        CHECK_EQ(t->code[i], 200);
    }
    CHECK(t->session.hosts == NULL && t->session.host_count == 0);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* ---- methods, request headers, a body ------------------------------------- */

typedef struct methods_test {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_http_request req;
    int st[5], code[5], bad[8];
    char seen[5][512];
    size_t body_len[5];
    int i;
} methods_test;

static const char json[] = "{\"name\": \"taal\"}";

static int methods_test_body(taal_coro *self)
{
    methods_test *f = (methods_test *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    for (f->i = 0; f->i < 5; f->i++) {
        static const char *const methods[] = {"POST", "GET", "HEAD", "DELETE", "PUT"};
        static const char *const urls[] = {
            "http://t.example/echo/users", "http://t.example/echo",
            "http://t.example/echo", "http://t.example/echo/1",
            "http://t.example/echo/1"};
        taal_http_request_init(&f->req, &f->session, methods[f->i], urls[f->i]);
        if (f->i == 0) {
            taal_http_request_header(&f->req, "Content-Type", "application/json");
            taal_http_request_header(&f->req, "X-Trace", "a\tb");
            taal_http_request_body(&f->req, json, strlen(json));
        }
        if (f->i == 1)
            taal_http_request_header(&f->req, "user-agent", "mine/2");
        TAAL_AWAIT_STATUS(f->st[f->i], &f->req);
        f->code[f->i] = f->req.status_code;
        f->body_len[f->i] = f->req.body_len;
        snprintf(f->seen[f->i], sizeof f->seen[f->i], "%s",
                 f->req.body ? f->req.body : "");
        taal_http_get_free(&f->req);
    }
    taal_http_request_init(&f->req, &f->session, "GET", "http://t.example/");
    f->bad[0] = taal_http_request_header(&f->req, "X-A", "b\r\nX-Smuggled: 1");
    f->bad[1] = taal_http_request_header(&f->req, "X A", "b");
    f->bad[2] = taal_http_request_header(&f->req, "host", "elsewhere");
    f->bad[3] = taal_http_request_header(&f->req, "Content-Length", "3");
    f->bad[4] = taal_http_request_header(&f->req, "", "b");
    f->bad[5] = taal_http_request_body(&f->req, NULL, 3);
    f->bad[6] = taal_http_request_init(&f->req, &f->session, "G T", "http://t.example/");
    f->bad[7] =
        taal_http_request_init(&f->req, &f->session, "GET\r\n", "http://t.example/");
    taal_http_get_free(&f->req);
    taal_http_session_close(&f->session);
    TAAL_END();
}

/* POST with a JSON body and headers, a header replacing the User-Agent,
 * HEAD (whose response has no body though it says Content-Length), DELETE,
 * PUT without a body (Content-Length: 0), each on the same connection. */
TEST(a_request_has_a_method_headers_and_a_body)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, methods_test_body,
                              &(methods_test){.port = server->port}, sizeof(methods_test),
                              NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    methods_test *t = taal_task_frame(task);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(t->st[i], TAAL_OK);
        CHECK_EQ(t->code[i], 200);
    }
    CHECK_STR(t->seen[0], "POST /echo/users HTTP/1.1\r\nHost: t.example\r\n"
                          "User-Agent: taal/" TAAL_VERSION "\r\n"
                          "Content-Type: application/json\r\nX-Trace: a\tb\r\n"
                          "Content-Length: 16\r\n\r\n{\"name\": \"taal\"}");
    CHECK_STR(t->seen[1], "GET /echo HTTP/1.1\r\nHost: t.example\r\n"
                          "user-agent: mine/2\r\n\r\n");
    CHECK_EQ(t->body_len[2], 0); /* HEAD */
    CHECK_STR(t->seen[3], "DELETE /echo/1 HTTP/1.1\r\nHost: t.example\r\n"
                          "User-Agent: taal/" TAAL_VERSION "\r\n\r\n");
    CHECK_STR(t->seen[4],
              "PUT /echo/1 HTTP/1.1\r\nHost: t.example\r\n"
              "User-Agent: taal/" TAAL_VERSION "\r\nContent-Length: 0\r\n\r\n");
    for (int i = 0; i < 8; i++)
        CHECK_EQ(t->bad[i], TAAL_EINVAL);
    CHECK_EQ(server->accepted, 1);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* ---- retries, requests given up, pipelining ------------------------------ */

/* Issue 25, defect 4: after a server closed an idle keep-alive connection,
 * the next GET failed with TAAL_EEOF. Not a byte of its response came: it
 * is sent again, on a new connection. */
TEST(a_get_on_a_keep_alive_connection_the_server_closed_is_sent_again)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/ok-close", "http://t.example/other",
                          "DELETE http://t.example/ok-close",
                          "PUT http://t.example/other"};
    double later[] = {0, 1, 2, 3};
    result r[4];
    CHECK_EQ(fetch_all_at(urls, 4, NULL, later, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "world");
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_EQ(r[3].st, TAAL_OK); /* PUT and DELETE are idempotent too */
    CHECK_STR(r[3].body, "world");
    CHECK_EQ(raw_last.accepted, 3); /* the DELETE went on the /other's */
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* Python's http.server closes after every response: of five GETs at once,
 * four failed. Now all five succeed, one at a time or pipelined. */
TEST(five_gets_at_once_to_a_server_that_closes_after_each_response_all_succeed)
{
    for (unsigned pipeline = 1; pipeline <= 5; pipeline += 4) {
        int fds = open_fds(), leaks;
        const char *urls[] = {"http://t.example/ok-close", "http://t.example/ok-close",
                              "http://t.example/ok-close", "http://t.example/ok-close",
                              "http://t.example/ok-close"};
        result r[5];
        CHECK_EQ(fetch_piped(urls, 5, NULL, NULL, pipeline, r, &leaks), TAAL_OK);
        for (int i = 0; i < 5; i++) {
            CHECK_EQ(r[i].st, TAAL_OK);
            CHECK_STR(r[i].body, "hello");
        }
        CHECK_EQ(raw_last.accepted, 5);
        CHECK_EQ(leaks, 0);
        CHECK_EQ(open_fds(), fds);
    }
}

/* A server that hangs up on every request: a GET is sent three times
 * (TAAL_HTTP_MAX_RETRIES more), then fails as it did; a POST, which the
 * server may have processed, is sent once. */
TEST(retries_are_bounded_and_only_for_idempotent_requests)
{
    int fds = open_fds(), leaks;
    const char *get[] = {"http://t.example/hangup"};
    const char *post[] = {"POST http://t.example/hangup"};
    result r[1];
    CHECK_EQ(fetch_all(get, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(r[0].code, 0);
    CHECK_EQ(raw_last.accepted, 1 + TAAL_HTTP_MAX_RETRIES);
    CHECK_EQ(fetch_all(post, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(raw_last.accepted, 1);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* A POST pipelined behind a response cut short may have been processed:
 * TAAL_ECONNABORTED. Without pipelining (the default) it waits for its
 * turn to be written, so it was never on that connection: it succeeds. */
TEST(requests_to_one_host_take_turns_unless_the_session_pipelines)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/cut/20", "POST http://t.example/echo"};
    result r[2];
    CHECK_EQ(fetch_piped(urls, 2, NULL, NULL, 2, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(r[1].st, TAAL_ECONNABORTED);
    CHECK_EQ(r[1].code, 0);
    CHECK_EQ(fetch_all(urls, 2, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK(strncmp(r[1].body, "POST /echo HTTP/1.1\r\n", 21) == 0);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* Issue 25, defect 5: a request that timed out kept its connection, and
 * the next request to the host queued behind the stalled response and
 * timed out too. */
typedef struct stalled {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_http_get get;
    taal_timeout scope;
    int st[2];
    char body[16];
    double ended;
} stalled;

static int stalled_body(taal_coro *self)
{
    stalled *f = (stalled *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    taal_http_get_init(&f->get, &f->session, "http://t.example/silent");
    TAAL_AWAIT_TIMEOUT_STATUS(f->st[0], &f->scope, 0.1, &f->get);
    taal_http_get_free(&f->get);
    taal_http_get_init(&f->get, &f->session, "http://t.example/ok");
    TAAL_AWAIT_TIMEOUT_STATUS(f->st[1], &f->scope, 5, &f->get);
    snprintf(f->body, sizeof f->body, "%s", f->get.body ? f->get.body : "");
    taal_http_get_free(&f->get);
    f->ended = taal_loop_time(taal_running_loop());
    taal_http_session_close(&f->session);
    TAAL_END();
}

TEST(a_request_that_timed_out_takes_its_connection_down_and_the_next_goes_promptly)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, stalled_body, &(stalled){.port = server->port},
                              sizeof(stalled), NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    stalled *t = taal_task_frame(task);
    CHECK_EQ(t->st[0], TAAL_ETIMEDOUT);
    CHECK_EQ(t->st[1], TAAL_OK);
    CHECK_STR(t->body, "hello");
    CHECK(t->ended < 0.5);
    CHECK_EQ(server->accepted, 2);
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop); /* the silent handler goes with the loop */
    CHECK_EQ(open_fds(), fds);
}

/* The same, with the second request already in line behind the first
 * (pipelined): it is sent again on a new connection; or, had it been sent
 * while the first was still in line, it takes its turn there. */
TEST(a_request_given_up_takes_its_connection_down_also_when_others_were_sent_behind_it)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/silent", "http://t.example/ok",
                          "http://t.example/other"};
    double cancel_at[] = {0.1, 0, 0};
    double start_at[] = {0, 0, 0.2};
    result r[3];
    CHECK_EQ(fetch_piped(urls, 3, cancel_at, start_at, 2, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_ECANCELLED);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "hello");
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "world");
    CHECK(raw_last.ended < 0.5);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

/* ---- redirects ------------------------------------------------------------- */

enum { REDIRECTS = 8 };

typedef struct redirect_test {
    taal_coro co;
    int port;
    taal_http_session session;
    taal_http_request req;
    int st[REDIRECTS], code[REDIRECTS], http_error[REDIRECTS];
    char body[REDIRECTS][64], url[REDIRECTS][64], location[REDIRECTS][32];
    int i;
} redirect_test;

static int redirect_test_body(taal_coro *self)
{
    static const char *const methods[REDIRECTS] = {"GET", "GET", "GET",  "HEAD",
                                                   "GET", "GET", "POST", "GET"};
    static const char *const urls[REDIRECTS] = {
        "http://t.example/r301", "http://t.example/r302", "http://t.example/r307",
        "http://t.example/r302", "http://t.example/loop", "http://t.example/away",
        "http://t.example/r302", "http://t.example/r302"};
    redirect_test *f = (redirect_test *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    for (f->i = 0; f->i < REDIRECTS; f->i++) {
        taal_http_request_init(&f->req, &f->session, methods[f->i], urls[f->i]);
        f->req.no_redirects = f->i == 7;
        TAAL_AWAIT_STATUS(f->st[f->i], &f->req);
        f->code[f->i] = f->req.status_code;
        f->http_error[f->i] = f->req.http_error;
        snprintf(f->body[f->i], sizeof f->body[f->i], "%s",
                 f->req.body ? f->req.body : "");
        snprintf(f->url[f->i], sizeof f->url[f->i], "%s", taal_http_request_url(&f->req));
        const char *location = taal_http_get_header(&f->req, "Location");
        snprintf(f->location[f->i], sizeof f->location[f->i], "%s",
                 location ? location : "");
        taal_http_get_free(&f->req);
    }
    taal_http_session_close(&f->session);
    TAAL_END();
}

/* GET and HEAD follow 301, 302, 303, 307 and 308 to an absolute URL of a
 * host the session knows (its name in any case) or a relative one, up to
 * max_redirects (then TAAL_ELIMIT); the final URL is readable; a POST, or
 * a request that says no_redirects, gets the 3xx itself. */
TEST(get_and_head_follow_redirects_up_to_the_sessions_bound)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, redirect_test_body,
                              &(redirect_test){.port = server->port},
                              sizeof(redirect_test), NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    redirect_test *t = taal_task_frame(task);
    CHECK_EQ(t->st[0], TAAL_OK);
    CHECK_EQ(t->code[0], 200);
    CHECK_STR(t->body[0], "world");
    CHECK_STR(t->url[0], "http://T.EXAMPLE/other");
    CHECK_EQ(t->st[1], TAAL_OK);
    CHECK_STR(t->body[1], "hello");
    CHECK_STR(t->url[1], "http://t.example/ok");
    CHECK_EQ(t->st[2], TAAL_OK);
    CHECK(strncmp(t->body[2], "GET /echo?x=1 HTTP/1.1\r\n", 24) == 0);
    CHECK_STR(t->url[2], "http://t.example/echo?x=1");
    CHECK_EQ(t->st[3], TAAL_OK); /* HEAD follows too; /ok's body is not read */
    CHECK_EQ(t->code[3], 200);
    CHECK_EQ(t->st[4], TAAL_ELIMIT);
    CHECK_EQ(t->http_error[4], TAAL_HTTP_ETOO_MANY_REDIRECTS);
    CHECK_EQ(t->code[4], 0);
    CHECK_EQ(t->st[5], TAAL_EADDR); /* a host the session does not know */
    CHECK_EQ(t->st[6], TAAL_OK);    /* POST: the 302 itself */
    CHECK_EQ(t->code[6], 302);
    CHECK_STR(t->location[6], "/ok");
    CHECK_EQ(t->st[7], TAAL_OK); /* no_redirects */
    CHECK_EQ(t->code[7], 302);
    CHECK_STR(t->url[7], "http://t.example/r302");
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* ---- a body streamed piece by piece ------------------------------------------ */

static char block[65536];
static const taal_http_route eight[] = {
    {.path = "/8m", .status = 200, .body = block, .length = sizeof block, .repeat = 128},
    {.path = "/8m-chunked",
     .status = 200,
     .body = block,
     .length = sizeof block,
     .repeat = 128,
     .chunked = true},
    {.path = "/", .status = 200, .body = "home\n"},
};

typedef struct streamer {
    taal_coro co;
    int port;
    const char *path;
    bool stop_early; /* free the request after the first piece */
    taal_http_session session;
    taal_http_request req;
    taal_http_read rd;
    int st, code, next_st, close_st;
    size_t total, pieces, longest, cap;
    bool in_order, ended;
    char url[64];
} streamer;

static int streamer_body(taal_coro *self)
{
    streamer *f = (streamer *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "s.example", "127.0.0.1", f->port);
    snprintf(f->url, sizeof f->url, "http://s.example%s", f->path);
    taal_http_get_init(&f->req, &f->session, f->url);
    f->req.stream_body = true;
    TAAL_AWAIT_STATUS(f->st, &f->req);
    f->code = f->req.status_code;
    f->in_order = true;
    while (f->st == TAAL_OK) {
        taal_http_read_init(&f->rd, &f->req);
        TAAL_AWAIT_STATUS(f->st, &f->rd);
        if (f->st != TAAL_OK || f->rd.end) {
            f->ended = f->rd.end;
            break;
        }
        for (size_t i = 0; i < f->rd.len; i++)
            if (f->rd.data[i] != block[(f->total + i) % sizeof block])
                f->in_order = false;
        f->total += f->rd.len;
        f->longest = f->rd.len > f->longest ? f->rd.len : f->longest;
        f->cap = f->req.body_cap > f->cap ? f->req.body_cap : f->cap;
        if (++f->pieces % 64 == 0)
            TAAL_SLEEP(0.01); /* a slow reader: the server must wait */
        if (f->stop_early)
            break;
    }
    taal_http_get_free(&f->req);
    taal_http_get_init(&f->req, &f->session, "http://s.example/");
    TAAL_AWAIT_STATUS(f->next_st, &f->req);
    taal_http_get_free(&f->req);
    f->close_st = taal_http_session_close(&f->session);
    TAAL_END();
}

static void run_streamer(streamer *t, taal_http_site *site, size_t *accepted)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, site, &server), TAAL_OK);
    t->port = server->port;
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, streamer_body, t, sizeof *t, NULL, &task), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    *t = *(streamer *)taal_task_frame(task);
    *accepted = server->accepted;
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* 8 MiB, by Content-Length and chunked, read in pieces of at most 16 KiB
 * by a reader that pauses: every byte in order, the client's memory one
 * piece (and its stream's buffer), the server made to wait; the
 * connection then goes on to the next request. */
TEST(a_large_body_streams_in_bounded_pieces_with_back_pressure)
{
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k < sizeof block; k++)
            block[k] = (char)('a' + k % 23);
        taal_http_site site = {.routes = eight, .count = 3};
        streamer t = {.path = i == 0 ? "/8m" : "/8m-chunked"};
        size_t accepted;
        run_streamer(&t, &site, &accepted);
        CHECK_EQ(t.st, TAAL_OK);
        CHECK_EQ(t.code, 200);
        CHECK(t.ended);
        CHECK_EQ(t.total, (size_t)128 * sizeof block);
        CHECK(t.in_order);
        CHECK(t.longest <= TAAL_HTTP_PIECE);
        CHECK(t.cap <= TAAL_HTTP_PIECE + 1);
        CHECK(site.drains > 0); /* the server waited for the reader */
        CHECK_EQ(t.next_st, TAAL_OK);
        CHECK_EQ(t.close_st, TAAL_OK);
        CHECK_EQ(accepted, 1);
    }
}

/* A streamed body given up before its end: the rest of it is on the
 * connection, which ends; the next request gets a new one. */
TEST(a_streamed_body_freed_before_its_end_takes_its_connection_down)
{
    taal_http_site site = {.routes = eight, .count = 3};
    streamer t = {.path = "/8m", .stop_early = true};
    size_t accepted;
    run_streamer(&t, &site, &accepted);
    CHECK_EQ(t.st, TAAL_OK);
    CHECK_EQ(t.pieces, 1);
    CHECK(!t.ended);
    CHECK_EQ(t.next_st, TAAL_OK);
    CHECK_EQ(t.close_st, TAAL_OK);
    CHECK_EQ(accepted, 2);
}

/* A request, and a read, initialised again in the same task's frame (a
 * second request after the first, a read per piece), as every program
 * that fetches twice or streams does: the init once cleared the whole
 * struct, header too, which cut the task's list of coroutines (chapter
 * 06's "never awaited") and made it report a misuse, once per piece. */
TEST(a_request_and_a_read_initialised_again_in_a_task_report_nothing)
{
    taal_http_site site = {.routes = eight, .count = 3};
    streamer t = {.path = "/8m"};
    size_t accepted;
    run_streamer(&t, &site, &accepted);
    CHECK_EQ(t.st, TAAL_OK);
    CHECK(t.ended);
    CHECK(t.pieces > 1);
    CHECK_EQ(t.next_st, TAAL_OK);
    CHECK_STR(reports, "");
}

/* ---- the session as an async context manager (chapter 06's async with) ---- */

typedef struct with_test {
    taal_coro co;
    int port;
    const char *url;
    bool fail;          /* the body fails with TAAL_EUSER after its request */
    bool leave_waiting; /* the body leaves while its request still waits */
    taal_http_session session;
    taal_block with;
    taal_task *task;
    bool open_inside, value_is_session, open_after, done_after;
    int got, st, closed;
} with_test;

static int with_test_body(taal_coro *self)
{
    with_test *f = (with_test *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, &f->session) {
        f->open_inside = f->session.open;
        f->value_is_session = f->with.value == &f->session;
        taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
        taal_task_create(taal_running_loop(), one_get_body,
                         &(one_get){.session = &f->session, .url = f->url},
                         sizeof(one_get), NULL, &f->task);
        if (f->leave_waiting)
            TAAL_SLEEP(1); /* the request is sent, its answer comes at 5 s */
        else
            TAAL_AWAIT_TASK_STATUS(f->got, f->task);
        if (f->fail)
            TAAL_FAIL(TAAL_EUSER);
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    f->open_after = f->session.open;
    if (f->leave_waiting) { /* the exit cancelled it: it has ended */
        f->done_after = taal_future_done(taal_task_future(f->task));
        TAAL_AWAIT_TASK_STATUS(f->got, f->task);
        f->closed = taal_http_session_close(&f->session);
    }
    taal_http_get_free(&((one_get *)taal_task_frame(f->task))->get);
    taal_task_release(f->task);
    TAAL_END();
}

/* Runs `t` in a task against a raw server, and checks that nothing is
 * left: no object in the loop, no descriptor open. */
static void run_with_test(with_test *t)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    CHECK(server != NULL);
    t->port = server->port;
    taal_task *task = NULL;
    CHECK_EQ(taal_task_create(&loop, with_test_body, t, sizeof *t, "with", &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    *t = *(with_test *)taal_task_frame(task);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_session_is_an_async_context_manager_open_inside_its_block_closed_after)
{
    with_test t = {.url = "http://t.example/ok"};
    run_with_test(&t);
    CHECK(t.open_inside);
    CHECK(t.value_is_session); /* `as session` */
    CHECK_EQ(t.got, TAAL_OK);
    CHECK_EQ(t.st, TAAL_OK);
    CHECK(!t.open_after);
}

TEST(a_failing_block_still_closes_the_session_and_keeps_its_error)
{
    with_test t = {.url = "http://t.example/ok", .fail = true};
    run_with_test(&t);
    CHECK_EQ(t.got, TAAL_OK);
    CHECK_EQ(t.st, TAAL_EUSER);
    CHECK(!t.open_after);
}

/* As aiohttp's __aexit__: the exit cancels what still waits, then closes. */
TEST(a_sessions_exit_cancels_a_request_still_waiting_and_closes)
{
    with_test t = {.url = "http://t.example/slow/5", .leave_waiting = true};
    run_with_test(&t);
    CHECK_EQ(t.st, TAAL_OK);
    CHECK(!t.open_after);
    CHECK(t.done_after);
    CHECK_EQ(t.got, TAAL_ECANCELLED);
    CHECK_EQ(t.closed, TAAL_OK); /* closing twice is harmless */
}

TEST(bad_input_to_the_session_is_refused)
{
    taal_http_session s = {0};
    taal_http_get g;
    CHECK_EQ(taal_http_session_open(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_http_session_open(&s), TAAL_ENOTASK);
    CHECK_EQ(taal_http_session_map(&s, "a", "127.0.0.1", 80), TAAL_EINVAL); /* not open */
    CHECK_EQ(taal_http_session_close(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_http_session_close(&s), TAAL_OK);
    CHECK_EQ(taal_http_get_init(NULL, &s, "http://a/"), TAAL_EINVAL);
    CHECK_EQ(taal_http_get_init(&g, &s, NULL), TAAL_EINVAL);
    taal_http_get_free(NULL);
    CHECK_EQ(taal_http_serve(NULL, "127.0.0.1", 0, NULL, NULL), TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(
        many_requests_at_once_share_one_keep_alive_connection_and_get_their_own_responses),
    TEST_ENTRY(pipelined_responses_are_read_by_the_requests_they_answer_in_order),
    TEST_ENTRY(a_request_given_up_in_line_ends_the_connection_where_its_response_comes),
    TEST_ENTRY(a_request_given_up_while_it_reads_ends_its_connection),
    TEST_ENTRY(a_response_that_closes_the_connection_sends_those_behind_it_again),
    TEST_ENTRY(
        a_write_that_fails_leaves_the_reader_its_response_and_goes_on_a_new_connection),
    TEST_ENTRY(interim_responses_are_skipped_and_the_final_one_is_the_requests),
    TEST_ENTRY(an_unasked_switch_of_protocols_is_an_error_and_ends_the_connection),
    TEST_ENTRY(bytes_past_the_end_of_a_body_are_never_a_response_to_the_next_request),
    TEST_ENTRY(a_body_that_never_ends_stops_at_the_sessions_bound),
    TEST_ENTRY(a_responses_headers_are_kept_in_order_and_found_ignoring_case),
    TEST_ENTRY(a_url_with_a_control_byte_is_refused_before_anything_is_written),
    TEST_ENTRY(a_url_is_sent_as_a_request_target_that_carries_it_exactly),
    TEST_ENTRY(a_long_url_is_sent_whole_and_one_over_the_bound_is_refused),
    TEST_ENTRY(
        a_failed_request_has_no_status_and_the_sessions_limits_are_read_per_response),
    TEST_ENTRY(a_session_knows_a_hundred_hosts_and_frees_them_all),
    TEST_ENTRY(a_request_has_a_method_headers_and_a_body),
    TEST_ENTRY(a_get_on_a_keep_alive_connection_the_server_closed_is_sent_again),
    TEST_ENTRY(five_gets_at_once_to_a_server_that_closes_after_each_response_all_succeed),
    TEST_ENTRY(retries_are_bounded_and_only_for_idempotent_requests),
    TEST_ENTRY(requests_to_one_host_take_turns_unless_the_session_pipelines),
    TEST_ENTRY(
        a_request_that_timed_out_takes_its_connection_down_and_the_next_goes_promptly),
    TEST_ENTRY(
        a_request_given_up_takes_its_connection_down_also_when_others_were_sent_behind_it),
    TEST_ENTRY(get_and_head_follow_redirects_up_to_the_sessions_bound),
    TEST_ENTRY(a_large_body_streams_in_bounded_pieces_with_back_pressure),
    TEST_ENTRY(a_streamed_body_freed_before_its_end_takes_its_connection_down),
    TEST_ENTRY(a_request_and_a_read_initialised_again_in_a_task_report_nothing),
    TEST_ENTRY(a_session_is_an_async_context_manager_open_inside_its_block_closed_after),
    TEST_ENTRY(a_failing_block_still_closes_the_session_and_keeps_its_error),
    TEST_ENTRY(a_sessions_exit_cancels_a_request_still_waiting_and_closes),
    TEST_ENTRY(bad_input_to_the_session_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
