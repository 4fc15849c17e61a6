/*
** test_http_server.c -- chapter 07: the bundled HTTP server against
** clients that misbehave: routes it cannot send, a flood of empty lines,
** connections that stay idle or send their request a byte at a time, more
** connections than it takes, and a client that never reads; through all of
** which a normal client is still answered.
*/
#include "http_support.h"

#ifndef _WIN32 /* the tests that fork a server, or lower the descriptor limit */
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#endif

/* A raw client: connects, writes `request` (`len` bytes, or strlen), and
 * reads what comes back until the server closes, into `out` (at most
 * `cap` - 1 bytes kept, NUL-terminated; `got` counts them all). With a
 * `then`, it first reads one response's head (up to an empty line), and
 * writes `then` after it: the body of a request that said
 * "Expect: 100-continue". With `hang_up`, it aborts the connection right
 * after writing, and reads nothing. */
typedef struct raw_client {
    taal_coro co;
    int port;
    const char *request;
    size_t len;
    const char *then;
    bool hang_up;
    size_t body_bytes; /* then this many bytes of body, drained as they go */
    int *write_error;  /* the first error writing them, as curl would stop at */
    size_t sent;
    char *out;
    size_t cap, got, n;
    int st;
    taal_stream *stream;
    char buf[4096];
} raw_client;

static void keep_bytes(raw_client *f, const char *at, size_t n)
{
    for (size_t i = 0; i < n; i++, f->got++)
        if (f->got + 1 < f->cap)
            f->out[f->got] = at[i];
}

static int raw_client_body(taal_coro *self)
{
    raw_client *f = (raw_client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st =
        taal_stream_write(f->stream, f->request, f->len ? f->len : strlen(f->request));
    while (f->st == TAAL_OK && f->sent < f->body_bytes) {
        memset(f->buf, 'x', sizeof f->buf);
        f->n = f->body_bytes - f->sent < sizeof f->buf ? f->body_bytes - f->sent
                                                       : sizeof f->buf;
        f->st = taal_stream_write(f->stream, f->buf, f->n);
        if (f->st == TAAL_OK)
            TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        f->sent += f->n;
        if (f->write_error != NULL)
            *f->write_error = f->st;
    }
    f->st = TAAL_OK;
    if (f->hang_up) {
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        taal_stream_abort(f->stream);
        TAAL_RETURN();
    }
    if (f->then != NULL) {
        TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, "\r\n\r\n", 4, f->buf,
                                     sizeof f->buf, f->n);
        keep_bytes(f, f->buf, f->n);
        if (f->st == TAAL_OK)
            f->st = taal_stream_write(f->stream, f->then, strlen(f->then));
    }
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->buf, sizeof f->buf, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        keep_bytes(f, f->buf, f->n);
    }
    if (f->cap > 0)
        f->out[f->got + 1 < f->cap ? f->got : f->cap - 1] = '\0';
    taal_stream_abort(f->stream);
    TAAL_END();
}

/* Serves `site` and runs one raw client `c` against it (its port filled
 * in): what taal_http_serve() said in *served. */
static void exchange_with(taal_http_site *site, raw_client *c, int *served)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    int rc = taal_http_serve(&loop, "127.0.0.1", 0, site, &server);
    if (rc == TAAL_OK) {
        c->port = server->port;
        CHECK_EQ(run_task(&loop, raw_client_body, c, sizeof *c), TAAL_OK);
        taal_server_release(server);
    }
    /* A connection may still be reading what the client sent last (a
     * lingering close): a read a loop iteration. */
    for (int i = 0; i < 1000 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
    *served = rc;
}

/* Serves `routes` and runs one raw client against it: what
 * taal_http_serve() said in *served, what the client read in `out`. */
static void exchange(const taal_http_route *routes, size_t count, const char *request,
                     size_t len, char *out, size_t cap, int *served)
{
    taal_http_site site = {.routes = routes, .count = count};
    raw_client c = {.request = request, .len = len, .out = out, .cap = cap};
    exchange_with(&site, &c, served);
}

/* One response as parse_responses() found it. */
typedef struct parsed {
    int status;
    char reason[64];
    char fields[2048]; /* "name: value\n" each, as received */
    char body[2048];   /* NUL-terminated */
    size_t body_len;
} parsed;

/* Parses the responses in `text`, in order, with the parser of http.h:
 * the i-th answers a HEAD if kinds[i] is 'H'. How many parsed whole; a
 * malformed one stops it, as it would stop a client. */
static size_t parse_responses(const char *text, const char *kinds, parsed *r, size_t max)
{
    size_t len = strlen(text), count = 0;
    http_parser p;
    http_parser_init(&p, HTTP_RESPONSE, NULL);
    while (count < max && kinds[count] != '\0' && len > 0) {
        parsed *one = &r[count];
        *one = (parsed){0};
        http_parser_reset(&p);
        http_parser_set_head(&p, kinds[count] == 'H');
        int rc;
        do {
            http_event ev;
            rc = http_parse(&p, text, len, &ev);
            if (rc == HTTP_STATUS_LINE) {
                one->status = p.status_code;
                snprintf(one->reason, sizeof one->reason, "%.*s", (int)ev.reason.len,
                         ev.reason.at);
            } else if (rc == HTTP_HEADER) {
                size_t used = strlen(one->fields);
                snprintf(one->fields + used, sizeof one->fields - used, "%.*s: %.*s\n",
                         (int)ev.name.len, ev.name.at, (int)ev.value.len, ev.value.at);
            } else if (rc == HTTP_BODY &&
                       one->body_len + ev.body.len < sizeof one->body) {
                memcpy(one->body + one->body_len, ev.body.at, ev.body.len);
                one->body_len += ev.body.len;
            }
            text += ev.consumed;
            len -= ev.consumed;
        } while (rc > 0 && rc != HTTP_MESSAGE_DONE && rc != HTTP_NEED_MORE);
        if (rc != HTTP_MESSAGE_DONE)
            break;
        count++; /* an interim response (100 Continue) counts as one */
    }
    return count;
}

/* True if `fields` (of a parsed) has the line "name: value". */
static bool has_field(const parsed *r, const char *line)
{
    char want[512];
    snprintf(want, sizeof want, "%s\n", line);
    return strstr(r->fields, want) == r->fields ||
           (strstr(r->fields, want) != NULL && strstr(r->fields, want)[-1] == '\n');
}

/* True if `fields` has a field of that name (a prefix "name: "). */
static bool has_name(const parsed *r, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, "%s: ", name);
    const char *at = strstr(r->fields, want);
    return at != NULL && (at == r->fields || at[-1] == '\n');
}

/* ---- routes it cannot send -------------------------------------------------- */

/* The head of a response is built in a line of 320 bytes: a content type of
 * 300 once made the next snprintf write past its end, on the first request. */
TEST(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused)
{
    static char long_type[300];
    memset(long_type, 'a', sizeof long_type - 1);
    const taal_http_route too_long[] = {
        {.path = "/", .status = 200, .content_type = long_type, .body = "x"}};
    char out[1024];
    int served;
    exchange(too_long, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route injected[] = {{.path = "/",
                                         .status = 200,
                                         .content_type = "text/plain\r\nSet-Cookie: a=b",
                                         .body = "x"}};
    exchange(injected, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_status[] = {{.path = "/", .status = 42, .body = "x"}};
    exchange(no_status, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_body[] = {{.path = "/", .status = 200, .body = NULL}};
    exchange(no_body, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
}

TEST(the_longest_content_type_allowed_is_sent_whole)
{
    static char type[TAAL_HTTP_MAX_CONTENT_TYPE + 1];
    memset(type, 't', TAAL_HTTP_MAX_CONTENT_TYPE);
    const taal_http_route routes[] = {
        {.path = "/", .status = 200, .content_type = type, .body = "body"}};
    char out[1024], want[256];
    int served;
    exchange(routes, 1, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0, out,
             sizeof out, &served);
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
    const taal_http_route routes[] = {{.path = "/", .status = 200, .body = "x"}};
    char out[256];
    int served;
    exchange(routes, 1, flood, sizeof flood, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
    CHECK(strstr(out, "Connection: close\r\n") != NULL);
}

/* ---- clients that hold on ----------------------------------------------------- */

/* One client of the crowd, by what it does: */
typedef enum behaviour {
    IDLE,   /* connects and says nothing */
    LORIS,  /* sends a request a header line a second, never ending it */
    FLOOD,  /* sends empty lines as fast as the server takes them */
    SULK,   /* asks for a big body and never reads it */
    NORMAL, /* asks for / and reads the answer, timing it */
    KEEP    /* asks for / on a kept-alive connection, then says nothing */
} behaviour;

typedef struct client {
    taal_coro co;
    int port;
    behaviour kind;
    double start_at;  /* when it connects (loop time) */
    double *answered; /* NORMAL: seconds from connecting to the answer */
    int *status;      /* the status code it got, 0 for none */
    int *ended;       /* counts clients whose connection the server ended */
    taal_stream *stream;
    char buf[8192];
    size_t n;
    int st, i;
    double began;
} client;

static int client_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    if (f->start_at > 0)
        TAAL_SLEEP(f->start_at - taal_loop_time(taal_running_loop()));
    f->began = taal_loop_time(taal_running_loop());
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->kind == LORIS) {
        taal_stream_write(f->stream, "GET / HTTP/1.1\r\nHost: x\r\n", 25);
        for (f->i = 0; f->i < 60; f->i++) { /* a minute, unless ended first */
            TAAL_SLEEP(1);
            if (taal_stream_write(f->stream, "X-Slow: yes\r\n", 13) != TAAL_OK ||
                taal_stream_buffered(f->stream) > 0 || taal_stream_at_eof(f->stream))
                break;
        }
    } else if (f->kind == FLOOD) {
        memset(f->buf, '\n', sizeof f->buf);
        for (f->i = 0; f->i < (int)sizeof f->buf; f->i += 2)
            f->buf[f->i] = '\r';
        for (f->i = 0; f->i < 1000; f->i++) { /* 8 MB at most */
            f->st = taal_stream_write(f->stream, f->buf, sizeof f->buf);
            if (f->st == TAAL_OK)
                TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
            if (f->st != TAAL_OK || taal_stream_buffered(f->stream) > 0)
                break;
        }
    } else if (f->kind == SULK) {
        taal_stream_write(f->stream, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 30);
        TAAL_SLEEP(30);
        taal_stream_abort(f->stream);
        TAAL_RETURN();
    } else if (f->kind == NORMAL || f->kind == KEEP) {
        taal_stream_write(f->stream, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
    }
    /* Read until the server ends the connection (or a minute passes). */
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->buf, sizeof f->buf, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        if (f->status != NULL && *f->status == 0 && f->n >= 12 &&
            strncmp(f->buf, "HTTP/1.1 ", 9) == 0) {
            *f->status = atoi(f->buf + 9);
            if (f->answered != NULL)
                *f->answered = taal_loop_time(taal_running_loop()) - f->began;
            if (f->kind == NORMAL)
                break;
        }
    }
    if (f->kind != NORMAL && f->ended != NULL)
        ++*f->ended;
    taal_stream_abort(f->stream);
    TAAL_END();
}

/* Runs `count` clients against a server of `site` on the virtual clock
 * until all have ended; the loop time it took in *took. */
static void run_clients(taal_http_site *site, client *clients, size_t count, double *took)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, site, &server), TAAL_OK);
    taal_task **tasks = calloc(count, sizeof *tasks);
    for (size_t i = 0; i < count; i++) {
        clients[i].port = server->port;
        CHECK_EQ(taal_task_create(&loop, client_body, &clients[i], sizeof clients[i],
                                  NULL, &tasks[i]),
                 TAAL_OK);
    }
    for (size_t i = 0; i < count; i++) {
        taal_run_until_complete(&loop, taal_task_future(tasks[i]));
        taal_task_release(tasks[i]);
    }
    free(tasks);
    *took = taal_loop_time(&loop);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static const taal_http_route home[] = {{.path = "/", .status = 200, .body = "home\n"}};

/* Slowloris: a request that never ends is cut off header_timeout after it
 * began, with 408; before, it held its connection for as long as it liked. */
TEST(a_request_that_never_ends_gets_408_after_the_header_timeout)
{
    taal_http_site site = {.routes = home, .count = 1, .header_timeout = 3};
    int status = 0, ended = 0;
    client c = {.kind = LORIS, .status = &status, .ended = &ended};
    double took;
    run_clients(&site, &c, 1, &took);
    CHECK_EQ(status, 408);
    CHECK_EQ(ended, 1);
    CHECK(took >= 3 && took <= 4); /* it notices at its next line, at 4 s */
    CHECK_EQ(site.timeouts, 1);
    CHECK_EQ(site.active, 0);
}

/* A new connection that says nothing has header_timeout; a kept-alive one
 * that says nothing more has idle_timeout, and is closed without a word. */
TEST(silent_connections_are_closed_after_their_timeouts)
{
    taal_http_site site = {
        .routes = home, .count = 1, .header_timeout = 3, .idle_timeout = 2};
    int status[2] = {0, 0}, ended = 0;
    client c[2] = {{.kind = IDLE, .status = &status[0], .ended = &ended},
                   {.kind = KEEP, .status = &status[1], .ended = &ended}};
    double took;
    run_clients(&site, c, 2, &took);
    CHECK_EQ(status[0], 0); /* nothing said, nothing answered */
    CHECK_EQ(status[1], 200);
    CHECK_EQ(ended, 2);
    CHECK(took >= 3 && took < 4); /* idle's 3 s; keep's 2 s came first */
    CHECK_EQ(site.timeouts, 2);
    CHECK_EQ(site.requests, 1);
}

/* At the cap, a new connection takes the place of the one idle longest;
 * when none is idle, it gets 503. */
TEST(over_the_connection_cap_the_longest_idle_goes_or_the_newcomer_gets_503)
{
    taal_http_site site = {.routes = home, .count = 1, .max_connections = 2};
    double answered = -1;
    int status[3] = {0, 0, 0}, ended = 0;
    client idle[3] = {
        {.kind = IDLE, .status = &status[0], .ended = &ended},
        {.kind = IDLE, .status = &status[1], .ended = &ended, .start_at = 0.1},
        {.kind = NORMAL, .status = &status[2], .answered = &answered, .start_at = 0.2}};
    double took;
    run_clients(&site, idle, 3, &took);
    CHECK_EQ(status[2], 200);
    CHECK(answered >= 0 && answered < 0.1);
    CHECK_EQ(site.evicted, 1);
    CHECK_EQ(site.refused, 0);
    CHECK_EQ(site.active, 0);

    taal_http_site full = {.routes = home, .count = 1, .max_connections = 2};
    int got[3] = {0, 0, 0};
    ended = 0;
    client busy[3] = {
        {.kind = LORIS, .status = &got[0], .ended = &ended},
        {.kind = LORIS, .status = &got[1], .ended = &ended, .start_at = 0.1},
        {.kind = NORMAL, .status = &got[2], .start_at = 0.2}};
    run_clients(&full, busy, 3, &took);
    CHECK_EQ(got[2], 503);
    CHECK_EQ(full.refused, 1);
    CHECK_EQ(got[0], 408); /* and the two slow ones time out in the end */
    CHECK_EQ(got[1], 408);
}

/* The crowd: 1,000 idle connections, 200 slow requests, a flood of empty
 * lines and a client that never reads, all at once, and a normal client
 * is answered within a second, twice. The descriptor limit is raised for
 * the crowd (the test process holds both ends of every connection), or,
 * where the hard limit is too low, the crowd is scaled down to fit. */
TEST(the_server_survives_a_crowd_and_still_answers_a_normal_client_within_a_second)
{
    enum { IDLE_COUNT = 1000, LORIS_COUNT = 200 };
    size_t idle_count = IDLE_COUNT, loris_count = LORIS_COUNT;
#ifndef _WIN32 /* Windows has no descriptor limit: the whole crowd */
    struct rlimit rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rlim_t want = 3 * (IDLE_COUNT + LORIS_COUNT) + 256;
    if (rl.rlim_cur < want) {
        struct rlimit raised = rl;
        raised.rlim_cur =
            rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) /* valgrind may refuse */
            rl = raised;
    }
    if (rl.rlim_cur < want) { /* a hard limit too low: scale the crowd down */
        double scale = (double)(rl.rlim_cur - 256) / (double)(want - 256);
        idle_count = (size_t)(IDLE_COUNT * scale);
        loris_count = (size_t)(LORIS_COUNT * scale);
        fprintf(stderr, "descriptor limit %ld: %zu idle, %zu slow\n", (long)rl.rlim_cur,
                idle_count, loris_count);
    }
#endif
    static char big[1 << 20];
    memset(big, 'b', sizeof big);
    /* 32 MiB for the client that never reads: under wine the kernel's
     * buffers once took all of 4 MiB, and the handler never had to drain */
    const taal_http_route routes[] = {
        {.path = "/", .status = 200, .body = "home\n"},
        {.path = "/big", .status = 200, .body = big, .length = sizeof big, .repeat = 32}};
    taal_http_site site = {.routes = routes, .count = 2};
    size_t count = idle_count + loris_count + 4;
    client *c = calloc(count, sizeof *c);
    double answered[2] = {-1, -1};
    int status[2] = {0, 0}, flood_status = 0, ended = 0;
    size_t k = 0;
    for (size_t i = 0; i < idle_count; i++) /* 100 more every 10 ms */
        c[k++] =
            (client){.kind = IDLE, .ended = &ended, .start_at = 0.01 * (double)(i / 100)};
    for (size_t i = 0; i < loris_count; i++)
        c[k++] = (client){
            .kind = LORIS, .ended = &ended, .start_at = 0.5 + 0.01 * (double)(i / 100)};
    c[k++] = (client){.kind = FLOOD, .status = &flood_status, .start_at = 0.8};
    c[k++] = (client){.kind = SULK, .start_at = 0.8};
    c[k++] = (client){
        .kind = NORMAL, .status = &status[0], .answered = &answered[0], .start_at = 1};
    c[k++] = (client){
        .kind = NORMAL, .status = &status[1], .answered = &answered[1], .start_at = 6};
    double took;
    run_clients(&site, c, count, &took);
    free(c);
    CHECK_EQ(status[0], 200);
    CHECK(answered[0] >= 0 && answered[0] < 1);
    CHECK_EQ(status[1], 200);
    CHECK(answered[1] >= 0 && answered[1] < 1);
    CHECK_EQ(flood_status, 400);
    CHECK_EQ(ended, (int)(idle_count + loris_count)); /* the server ended them all */
    CHECK(site.evicted > 0);
    CHECK(site.drains > 0); /* the client that never read held its handler */
    CHECK_EQ(site.active, 0);
}

/* ---- few descriptors ------------------------------------------------------------ */

typedef struct sleeper {
    taal_coro co;
    double seconds;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->seconds);
    TAAL_END();
}

#ifndef _WIN32
/* A blocking client socket connected to 127.0.0.1:port, or -1. */
static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The case: with the descriptor limit at 40, idle connections took
 * every descriptor, and the server sat in its EMFILE retry while a normal
 * client waited in the kernel's queue. The default cap now follows the
 * limit (40 less 16), so the server stops at its cap, where an idle
 * connection makes room, before it runs out. The server runs in a child
 * process, which lowers its own limit (and is killed at the end); the
 * clients are plain blocking sockets of the test's. */
TEST(with_few_descriptors_the_default_cap_keeps_idle_connections_from_starving_a_client)
{
    const char *preload = getenv("LD_PRELOAD");
    if (preload != NULL && strstr(preload, "vgpreload") != NULL) {
        fprintf(stderr, "skipped under valgrind: its own descriptors do not fit "
                        "under a limit of 40 in the child\n");
        return;
    }
    int port_pipe[2];
    CHECK_EQ(pipe(port_pipe), 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        close(port_pipe[0]);
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = 40;
        setrlimit(RLIMIT_NOFILE, &rl);
        taal_loop loop;
        taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC};
        taal_http_site site = {.routes = home, .count = 1};
        taal_server *server = NULL;
        int port = -1;
        if (taal_loop_init(&loop, &options) == TAAL_OK &&
            taal_http_serve(&loop, "127.0.0.1", 0, &site, &server) == TAAL_OK)
            port = server->port;
        if (write(port_pipe[1], &port, sizeof port) != sizeof port || port < 0)
            _exit(1);
        run_task(&loop, sleeper_body, &(sleeper){.seconds = 30}, sizeof(sleeper));
        _exit(0);
    }
    close(port_pipe[1]);
    int port = -1;
    CHECK_EQ(read(port_pipe[0], &port, sizeof port), (ssize_t)sizeof port);
    close(port_pipe[0]);
    CHECK(port > 0);
    int idle[40];
    for (int i = 0; i < 40; i++)
        idle[i] = dial(port);
    int fd = dial(port);
    CHECK(fd >= 0);
    struct timeval wait = {.tv_sec = 25}; /* valgrind is slow; the child lives 30 s */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char answer[64] = {0};
    CHECK_EQ(send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, 0), 27);
    ssize_t got = recv(fd, answer, sizeof answer - 1, 0);
    close(fd);
    for (int i = 0; i < 40; i++)
        if (idle[i] >= 0)
            close(idle[i]);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK(got >= 12);
    CHECK(strncmp(answer, "HTTP/1.1 200", 12) == 0);
}
#else
SKIPPED_TEST(
    with_few_descriptors_the_default_cap_keeps_idle_connections_from_starving_a_client,
    "Windows has no descriptor limit (the default cap is 256 there), and no "
    "fork() for the server's process")
#endif

/* ---- what it answers, against a raw client ------------------------------------ */

static const taal_http_route kinds[] = {
    {.path = "/", .status = 200, .body = "home\n"},
    {.path = "/r", .status = 200, .body = "ab", .repeat = 3},
    {.path = "/c", .status = 200, .body = "chunk\n", .repeat = 2, .chunked = true},
};

/* Issue 25, defect 2: a HEAD on a chunked route was answered with the last
 * chunk, "0\r\n\r\n", which the client took for the start of the next
 * response (curl: "Received HTTP/0.9"). Every kind of route, HEAD then
 * GET on one connection: each GET's response must still parse. */
TEST(head_then_get_on_one_connection_both_parse_on_every_kind_of_route)
{
    static const char request[] = "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "HEAD /r HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /r HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "HEAD /c HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /c HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "HEAD /missing HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "HEAD / HTTP/1.1\r\n\r\n"; /* no Host: 400 */
    char out[4096];
    int served;
    exchange(kinds, 3, request, 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    parsed r[9];
    CHECK_EQ(parse_responses(out, "HGHGHGHGH", r, 9), 9);
    static const char *const bodies[] = {"home\n", "ababab", "chunk\nchunk\n",
                                         "not found\n"};
    static const int statuses[] = {200, 200, 200, 404};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(r[2 * i].status, statuses[i]);
        CHECK_EQ(r[2 * i].body_len, 0);
        CHECK_STR(r[2 * i + 1].body, bodies[i]);
        CHECK_STR(r[2 * i].fields, r[2 * i + 1].fields); /* the same head */
    }
    CHECK(has_field(&r[5], "Transfer-Encoding: chunked"));
    CHECK(has_field(&r[4], "Transfer-Encoding: chunked"));
    CHECK(has_field(&r[2], "Content-Length: 6"));
    CHECK_EQ(r[8].status, 400);
    CHECK(has_field(&r[8], "Connection: close"));
}

/* Issue 25, defect 3: an HTTP/1.0 client that asked for keep-alive was
 * kept without being told so, and waited for the server to close (`ab -k`
 * completed 0 requests). Kept, it is told; not asking, it is closed. And
 * an HTTP/1.0 client is never sent chunks, which it does not know. */
TEST(an_http_1_0_client_that_asks_for_keep_alive_is_told_so_and_kept)
{
    static const char request[] = "GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                                  "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"
                                  "GET / HTTP/1.0\r\n\r\n"
                                  "GET / HTTP/1.0\r\n\r\n"; /* never answered */
    char out[4096];
    int served;
    exchange(kinds, 3, request, 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    parsed r[4];
    CHECK_EQ(parse_responses(out, "GGGG", r, 4), 3);
    CHECK(has_field(&r[0], "Connection: keep-alive"));
    CHECK(has_field(&r[0], "Content-Length: 12"));
    CHECK(!has_name(&r[0], "Transfer-Encoding"));
    CHECK_STR(r[0].body, "chunk\nchunk\n");
    CHECK(has_field(&r[1], "Connection: keep-alive"));
    CHECK(has_field(&r[2], "Connection: close"));
}

static const taal_http_route statuses[] = {
    {.path = "/201", .status = 201, .body = "made\n"},
    {.path = "/204", .status = 204, .body = "never sent"},
    {.path = "/301",
     .status = 301,
     .body = "moved\n",
     .headers =
         (const char *const[]){"Location", "/new", "Cache-Control", "no-cache", NULL}},
    {.path = "/304", .status = 304, .body = ""},
    {.path = "/308", .status = 308, .body = ""},
    {.path = "/599", .status = 599, .body = "odd\n"},
    {.path = "/post", .status = 200, .body = "posted\n", .methods = TAAL_HTTP_POST},
};

/* A Date is an IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT". */
static bool imf_fixdate(const parsed *r)
{
    const char *at = strstr(r->fields, "Date: ");
    if (at == NULL)
        return false;
    at += 6;
    const char *end = strchr(at, '\n');
    int day, year, h, m, sec;
    char wday[4], mon[4];
    return end != NULL && end - at == 29 &&
           sscanf(at, "%3s, %2d %3s %4d %2d:%2d:%2d GMT", wday, &day, mon, &year, &h, &m,
                  &sec) == 7 &&
           strstr("SunMonTueWedThuFriSat", wday) != NULL &&
           strstr("JanFebMarAprMayJunJulAugSepOctNovDec", mon) != NULL && year >= 2024;
}

/* Issue 25, defect 6: "Unknown" for 201, 204 and 301, a Content-Length on
 * a 204, no Date. Each status gets RFC 9110's reason phrase ("Unknown"
 * for one it does not name), a Date, and 204 and 304 no Content-Length. */
TEST(every_response_has_its_reason_phrase_and_a_date_and_204_and_304_no_length)
{
    static const char request[] = "GET /201 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /204 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /301 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /304 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /308 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /599 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /nowhere HTTP/1.1\r\nHost: x\r\n"
                                  "Connection: close\r\n\r\n";
    char out[8192];
    int served;
    exchange(statuses, 7, request, 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    parsed r[7];
    CHECK_EQ(parse_responses(out, "GGGGGGG", r, 7), 7);
    static const char *const reasons[] = {
        "Created",      "No Content",         "Moved Permanently",
        "Not Modified", "Permanent Redirect", "Unknown",
        "Not Found"};
    for (int i = 0; i < 7; i++) {
        CHECK_STR(r[i].reason, reasons[i]);
        CHECK(imf_fixdate(&r[i]));
    }
    CHECK(!has_name(&r[1], "Content-Length"));
    CHECK_EQ(r[1].body_len, 0);
    CHECK(!has_name(&r[3], "Content-Length"));
    CHECK(has_field(&r[2], "Location: /new"));
    CHECK(has_field(&r[2], "Cache-Control: no-cache"));
    CHECK_STR(r[2].body, "moved\n");
}

/* Issue 25, defect 6: an HTTP/1.1 request without Host was answered 200;
 * RFC 9112 3.2 says 400, for two Hosts too. HTTP/1.0 needs none. */
TEST(an_http_1_1_request_without_exactly_one_host_gets_400)
{
    char out[2048];
    int served;
    parsed r[2];
    exchange(kinds, 3, "GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, out,
             sizeof out, &served);
    CHECK_EQ(parse_responses(out, "GG", r, 2), 1); /* and the connection closed */
    CHECK_EQ(r[0].status, 400);
    exchange(kinds, 3, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 400);
    exchange(kinds, 3, "GET / HTTP/1.0\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 200);
}

/* Issue 25, defect 6: every method was answered like GET. A method the
 * route does not allow gets 405 with Allow; one the server does not know
 * (methods are case-sensitive), 501; both close the connection. */
TEST(a_method_the_route_does_not_allow_gets_405_and_one_unknown_gets_501)
{
    char out[2048];
    int served;
    parsed r[2];
    exchange(statuses, 7, "POST /201 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi",
             0, out, sizeof out, &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 405);
    CHECK_STR(r[0].reason, "Method Not Allowed");
    CHECK(has_field(&r[0], "Allow: GET, HEAD"));
    CHECK(has_field(&r[0], "Connection: close"));
    exchange(statuses, 7, "GET /post HTTP/1.1\r\nHost: x\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 405);
    CHECK(has_field(&r[0], "Allow: POST"));
    exchange(statuses, 7,
             "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
             "BREW /post HTTP/1.1\r\nHost: x\r\n\r\n"
             "GET /201 HTTP/1.1\r\nHost: x\r\n\r\n",
             0, out, sizeof out, &served);
    CHECK_EQ(parse_responses(out, "GGG", r, 3), 2);
    CHECK_EQ(r[0].status, 200);
    CHECK_STR(r[0].body, "posted\n");
    CHECK_EQ(r[1].status, 501);
    exchange(statuses, 7, "get /201 HTTP/1.1\r\nHost: x\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 501);
}

/* ---- routes ----------------------------------------------------------------------- */

/* Issue 25: routes matched the whole target, so "/users/1?x=1" was a 404.
 * The path is matched without its query, exactly or by prefix, the first
 * route that matches answering. */
TEST(routes_match_the_path_without_its_query_exactly_or_by_prefix)
{
    static const taal_http_route routes[] = {
        {.path = "/users/1", .status = 200, .body = "one\n"},
        {.path = "/static/", .status = 200, .body = "file\n", .prefix = true},
        {.path = "/", .status = 200, .body = "rest\n", .prefix = true},
    };
    static const char request[] = "GET /users/1?x=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /static/a/b.css?v=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /users/12 HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET /static HTTP/1.1\r\nHost: x\r\n"
                                  "Connection: close\r\n\r\n";
    char out[4096];
    int served;
    exchange(routes, 3, request, 0, out, sizeof out, &served);
    parsed r[5];
    CHECK_EQ(parse_responses(out, "GGGGG", r, 5), 5);
    CHECK_STR(r[0].body, "one\n");
    CHECK_STR(r[1].body, "one\n");
    CHECK_STR(r[2].body, "file\n");
    CHECK_STR(r[3].body, "rest\n"); /* "/users/1" is exact: "/users/12" is not it */
    CHECK_STR(r[4].body, "rest\n");
    static const taal_http_route exact[] = {
        {.path = "/users/1", .status = 200, .body = "1"}};
    exchange(exact, 1, "GET /users/1/ HTTP/1.1\r\nHost: x\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1); /* "/users/1" is exact */
    CHECK_EQ(r[0].status, 404);
}

/* A route's own fields are checked when it is served: a CR or LF in a
 * value would inject a header of the caller's choosing. */
TEST(a_route_header_that_would_inject_a_field_is_refused)
{
    static const char *const injected[] = {"Location", "/x\r\nSet-Cookie: a=b", NULL};
    static const char *const bad_name[] = {"Loc ation", "/x", NULL};
    static const char *const reserved_name[] = {"content-length", "5", NULL};
    static const char *const *const cases[] = {injected, bad_name, reserved_name};
    char out[256];
    int served;
    for (int i = 0; i < 3; i++) {
        const taal_http_route routes[] = {
            {.path = "/", .status = 301, .body = "", .headers = cases[i]}};
        exchange(routes, 1, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, out, sizeof out,
                 &served);
        CHECK_EQ(served, TAAL_EINVAL);
    }
}

/* ---- Expect: 100-continue ------------------------------------------------------- */

typedef struct echo_handler {
    taal_http_handler h;
    char seen[256];
    int st;
} echo_handler;

/* The handler of the tests: echoes the body, with the method, path and
 * query in X-Seen, and the request's Content-Type as its own; "/fail"
 * fails, "/slow" sleeps a second first (counting in data[0] how many slow
 * ones ended, in data[1] how many of those were cancelled). */
static int echo_handler_body(taal_coro *self)
{
    echo_handler *f = (echo_handler *)self;
    int *ends = f->h.data;
    const char *type;
    TAAL_BEGIN(&f->h);
    if (strcmp(f->h.request->path, "/slow") == 0) {
        TAAL_SLEEP_STATUS(f->st, 1);
        if (ends != NULL) {
            ends[0]++;
            ends[1] += f->st == TAAL_ECANCELLED;
        }
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    if (strcmp(f->h.request->path, "/fail") == 0)
        TAAL_FAIL(TAAL_EPROTO);
    snprintf(f->seen, sizeof f->seen, "%s %s %s", f->h.request->method,
             f->h.request->path, f->h.request->query);
    type = taal_http_server_request_header(f->h.request, "content-type");
    f->st = taal_http_response_header(f->h.response, "X-Seen", f->seen);
    if (f->st == TAAL_OK && type != NULL)
        f->st = taal_http_response_header(f->h.response, "Content-Type", type);
    if (f->st == TAAL_OK)
        f->st = taal_http_response_write(f->h.response, f->h.request->body,
                                         f->h.request->body_len);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->h.response->status = 201;
    TAAL_END();
}

static const taal_http_route handled[] = {
    {.path = "/",
     .prefix = true,
     .methods = TAAL_HTTP_GET | TAAL_HTTP_POST | TAAL_HTTP_PUT,
     .handler = echo_handler_body,
     .handler_size = sizeof(echo_handler)},
};

/* Issue 25, defect 6: "Expect: 100-continue" was never answered, and curl
 * waited a second before sending its body anyway. A request that will be
 * read is told "100 Continue" before its body; one refused at its head
 * gets its final status at once, without the 100, and is closed. */
TEST(expect_100_continue_is_answered_before_the_body_and_a_refusal_at_once)
{
    int served;
    char out[4096];
    parsed r[3];
    taal_http_site site = {.routes = handled, .count = 1, .max_body = 100};
    raw_client c = {.request = "PUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                               "Expect: 100-continue\r\nConnection: close\r\n\r\n",
                    .then = "hello",
                    .out = out,
                    .cap = sizeof out};
    exchange_with(&site, &c, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 100 Continue\r\n\r\n", 25) == 0);
    CHECK_EQ(parse_responses(out, "GG", r, 3), 2);
    CHECK_EQ(r[0].status, 100);
    CHECK_EQ(r[1].status, 201);
    CHECK_STR(r[1].body, "hello");

    /* Too large for the site's max_body: 413 at once. */
    raw_client big = {.request = "PUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n"
                                 "Expect: 100-continue\r\n\r\n",
                      .then = "never sent, or not read",
                      .out = out,
                      .cap = sizeof out};
    exchange_with(&site, &big, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK_EQ(parse_responses(out, "GG", r, 3), 1);
    CHECK_EQ(r[0].status, 413);
    CHECK(has_field(&r[0], "Connection: close"));

    /* A method the route does not allow: 405 at once. */
    raw_client not_allowed = {.request =
                                  "DELETE /x HTTP/1.1\r\nHost: x\r\n"
                                  "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n",
                              .then = "hello",
                              .out = out,
                              .cap = sizeof out};
    exchange_with(&site, &not_allowed, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK_EQ(parse_responses(out, "GG", r, 3), 1);
    CHECK_EQ(r[0].status, 405);
    CHECK(has_field(&r[0], "Allow: GET, HEAD, POST, PUT"));
}

/* A client still sending the body of a request refused at its head (a
 * POST of 8 MB to a route that does not take POST, without Expect): the
 * server closed with the body unread, the kernel answered the rest with a
 * reset, and the client's write failed before it read its 405 (curl:
 * error 55, two times in three). Now the server shuts writing and reads
 * and drops the rest, and the client sends it all and reads its answer. */
TEST(a_client_still_sending_a_refused_body_gets_its_answer_not_a_reset)
{
    int served, write_error = TAAL_EINVAL;
    char out[1024];
    taal_http_site site = {.routes = kinds, .count = 3};
    raw_client c = {.request =
                        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n",
                    .body_bytes = 8388608,
                    .write_error = &write_error,
                    .out = out,
                    .cap = sizeof out};
    exchange_with(&site, &c, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK_EQ(write_error, TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 405 Method Not Allowed\r\n", 33) == 0);
}

/* ---- handlers ------------------------------------------------------------------------
 */

/* The gap: fixed bodies only. A handler gets the method, path,
 * query, fields and body of the request (Content-Length or chunked), and
 * sets the status, headers and body of the response. */
TEST(a_handler_echoes_a_posted_json_body_and_sets_a_header)
{
    int served;
    static const char request[] =
        "POST /api/items?dry=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 25\r\n\r\n{\"name\": \"Asha\", \"id\": 1}"
        "PUT /api/items/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "3\r\n{\"a\r\n5\r\n\": 2}\r\n0\r\n\r\n"
        "HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    char out[4096];
    taal_http_site site = {.routes = handled, .count = 1};
    raw_client c = {.request = request, .out = out, .cap = sizeof out};
    exchange_with(&site, &c, &served);
    CHECK_EQ(served, TAAL_OK);
    parsed r[3];
    CHECK_EQ(parse_responses(out, "GGH", r, 3), 3);
    CHECK_EQ(r[0].status, 201);
    CHECK_STR(r[0].body, "{\"name\": \"Asha\", \"id\": 1}");
    CHECK(has_field(&r[0], "Content-Type: application/json"));
    CHECK(has_field(&r[0], "X-Seen: POST /api/items dry=1"));
    CHECK(has_field(&r[0], "Content-Length: 25"));
    CHECK(!has_field(&r[0], "Content-Type: text/plain"));
    CHECK_STR(r[1].body, "{\"a\": 2}");
    CHECK(has_field(&r[1], "X-Seen: PUT /api/items/1"));
    CHECK(has_field(&r[1], "Content-Type: text/plain"));
    CHECK_EQ(r[2].body_len, 0);
    CHECK(has_field(&r[2], "X-Seen: HEAD /h"));
    CHECK_EQ(site.requests, 3);
}

/* A handler that fails gets 500, and the connection is closed; a chunked
 * body that grows past max_body gets 413 as it does. */
TEST(a_handler_that_fails_gets_500_and_a_body_too_large_413)
{
    int served;
    char out[2048];
    parsed r[2];
    taal_http_site site = {.routes = handled, .count = 1, .max_body = 8};
    raw_client fail = {.request = "GET /fail HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                       .out = out,
                       .cap = sizeof out};
    exchange_with(&site, &fail, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK_EQ(parse_responses(out, "GG", r, 2), 1);
    CHECK_EQ(r[0].status, 500);
    CHECK_STR(r[0].reason, "Internal Server Error");
    raw_client big = {.request =
                          "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                          "\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n",
                      .out = out,
                      .cap = sizeof out};
    exchange_with(&site, &big, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK_EQ(parse_responses(out, "G", r, 1), 1);
    CHECK_EQ(r[0].status, 413);
}

/* A client that goes away while its handler runs: the handler runs to its
 * end (as aiohttp's do by default), its response goes nowhere, and
 * nothing is left. Under ASan this is the use-after-free check. */
TEST(a_client_that_goes_away_while_its_handler_runs_leaves_nothing_behind)
{
    int ends[2] = {0, 0};
    taal_http_route routes[] = {handled[0]};
    routes[0].handler_data = ends;
    taal_http_site site = {.routes = routes, .count = 1};
    raw_client gone = {.request = "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2"
                                  "\r\n\r\nhi",
                       .hang_up = true};
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, &site, &server), TAAL_OK);
    gone.port = server->port;
    CHECK_EQ(run_task(&loop, raw_client_body, &gone, sizeof gone), TAAL_OK);
    run_task(&loop, sleeper_body, &(sleeper){.seconds = 2}, sizeof(sleeper));
    CHECK_EQ(ends[0], 1); /* it ran to its end, */
    CHECK_EQ(ends[1], 0);
    CHECK_EQ(site.active, 0); /* and its connection is gone */

    /* And the next client is served as ever. */
    char out[1024];
    raw_client next = {.port = server->port,
                       .request =
                           "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                       .out = out,
                       .cap = sizeof out};
    CHECK_EQ(run_task(&loop, raw_client_body, &next, sizeof next), TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 201 Created\r\n", 22) == 0);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

/* A loop closed bare (no taal_run() to cancel what is left) while a
 * handler is running frees what the server made for the exchange: the
 * handler's frame, the request's copies and the response (LeakSanitizer
 * and valgrind would report them; the leak check runs in the sanitize and
 * valgrind presets). The client hangs up without waiting: the handler is
 * in its second of sleep when the loop closes. */
TEST(a_loop_closed_bare_while_a_handler_runs_frees_the_exchange)
{
    int ends[2] = {0, 0};
    taal_http_route routes[] = {handled[0]};
    routes[0].handler_data = ends;
    taal_http_site site = {.routes = routes, .count = 1};
    raw_client gone = {.request = "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2"
                                  "\r\n\r\nhi",
                       .hang_up = true};
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, &site, &server), TAAL_OK);
    gone.port = server->port;
    CHECK_EQ(run_task(&loop, raw_client_body, &gone, sizeof gone), TAAL_OK);
    run_task(&loop, sleeper_body, &(sleeper){.seconds = 0.2}, sizeof(sleeper));
    CHECK_EQ(site.active, 1); /* its connection is in the handler, */
    CHECK_EQ(ends[0], 0);     /* which has not ended */
    /* The server still held, its connection in the handler: closed. */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(ends[0], 0);     /* a bare close runs no more of it, */
    CHECK_EQ(site.active, 0); /* the site no longer counts it */
    CHECK(site.idle_first == NULL && site.idle_last == NULL);
    CHECK_EQ(open_fds(), fds);
}

/* Out of memory anywhere in a handler's exchange (the request's copies,
 * the handler's frame, the response's fields and body) ends it cleanly. */
TEST(every_allocation_failure_in_a_handler_exchange_ends_cleanly)
{
    static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                           taal_check_free};
    static const char request[] =
        "POST /api?q=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 9\r\n\r\n{\"a\": 1}\n"
        "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    int fds = open_fds();
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    int failures = 0;
    for (long n = 1; n < 300; n++) {
        taal_check_alloc_reset(n);
        char out[2048] = "";
        taal_loop loop;
        taal_server *server = NULL;
        taal_http_site site = {.routes = handled, .count = 1};
        int rc = open_loop(&loop);
        if (rc == TAAL_OK)
            rc = taal_http_serve(&loop, "127.0.0.1", 0, &site, &server);
        if (rc == TAAL_OK) {
            raw_client c = {
                .port = server->port, .request = request, .out = out, .cap = sizeof out};
            rc = run_task(&loop, raw_client_body, &c, sizeof c);
            taal_server_release(server);
        }
        for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
            taal_run_once(&loop);
        taal_loop_close(&loop);
        if (taal_check_alloc_live() != 0)
            fprintf(stderr, "allocation %ld failed: %ld blocks left\n", n,
                    taal_check_alloc_live());
        CHECK_EQ(taal_check_alloc_live(), 0);
        CHECK_EQ(open_fds(), fds);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            parsed r[2];
            CHECK_EQ(parse_responses(out, "GG", r, 2), 2);
            CHECK_EQ(r[0].status, 201);
            break;
        }
        failures++;
    }
    taal_set_allocator(NULL);
    fprintf(stderr, "%d allocations, each failed in turn\n", failures);
    CHECK(failures > 5);
}

/* ---- real peers: curl and ab ------------------------------------------------ */

#ifndef _WIN32
/* The peers, where they are installed (Debian's curl and
 * apache2-utils; .ci/run installs them): the server runs in a child
 * process on the real clock, for at most 20 s, and the test runs the tool
 * against it. Without the tool, or under valgrind (too slow for ab's
 * thousands of requests), the test says so and passes. */
static bool have_tool(const char *path)
{
    const char *preload = getenv("LD_PRELOAD");
    if (preload != NULL && strstr(preload, "vgpreload") != NULL) {
        fprintf(stderr, "skipped under valgrind\n");
        return false;
    }
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "skipped: %s is not installed\n", path);
        return false;
    }
    return true;
}

static const taal_http_route peer_routes[] = {
    {.path = "/", .status = 200, .body = "hello, world\n"},
    {.path = "/c", .status = 200, .body = "chunk\n", .repeat = 3, .chunked = true},
    {.path = "/echo",
     .methods = TAAL_HTTP_POST | TAAL_HTTP_PUT,
     .handler = echo_handler_body,
     .handler_size = sizeof(echo_handler)},
};

/* Forks a server of peer_routes on the real clock: its pid, its port in
 * *port. */
static pid_t serve_in_child(int *port)
{
    int port_pipe[2];
    *port = -1;
    if (pipe(port_pipe) != 0)
        return -1;
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(port_pipe[0]);
        taal_loop loop;
        taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC};
        taal_http_site site = {.routes = peer_routes, .count = 3, .max_body = 4 << 20};
        taal_server *server = NULL;
        int at = -1;
        if (taal_loop_init(&loop, &options) == TAAL_OK &&
            taal_http_serve(&loop, "127.0.0.1", 0, &site, &server) == TAAL_OK)
            at = server->port;
        if (write(port_pipe[1], &at, sizeof at) != sizeof at || at < 0)
            _exit(1);
        run_task(&loop, sleeper_body, &(sleeper){.seconds = 20}, sizeof(sleeper));
        _exit(0);
    }
    close(port_pipe[1]);
    if (child > 0 && read(port_pipe[0], port, sizeof *port) != (ssize_t)sizeof *port)
        *port = -1;
    close(port_pipe[0]);
    return child;
}

static void stop_child(pid_t child)
{
    if (child <= 0) /* kill(-1) would be every process we may signal */
        return;
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
}

/* Runs `command` (a shell line, with %d for the port) and keeps the first
 * `cap` - 1 bytes of its output; its exit status. */
static int run_tool(const char *command, int port, char *out, size_t cap)
{
    char line[1024];
    snprintf(line, sizeof line, command, port, port, port);
    FILE *p = popen(line, "r");
    if (p == NULL)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Defect 2 as curl saw it: "Received HTTP/0.9 when not allowed" on the
 * GET after a HEAD of a chunked route, on one connection. */
TEST(curl_reads_a_get_after_a_head_of_a_chunked_route_on_one_connection)
{
    if (!have_tool("/usr/bin/curl"))
        return;
    int port;
    pid_t child = serve_in_child(&port);
    if (port <= 0)
        stop_child(child);
    CHECK(port > 0);
    char out[512];
    int rc = run_tool("/usr/bin/curl -s -m 5 -I http://127.0.0.1:%d/c -o /dev/null -w "
                      "'%%{http_code} ' --next -s -m 5 http://127.0.0.1:%d/c -w "
                      "' %%{http_code} %%{num_connects}'",
                      port, out, sizeof out);
    stop_child(child);
    CHECK_EQ(rc, 0);
    CHECK_STR(out, "200 chunk\nchunk\nchunk\n 200 0"); /* no new connection */
}

/* curl as an HTTP/1.0 client asking for keep-alive reuses the connection.
 * (Not the test of defect 3: curl goes by the response's version, HTTP/1.1,
 * and reused it before the fix too; ab, below, goes by the header.) */
TEST(curl_keeps_an_http_1_0_connection_the_server_says_it_keeps)
{
    if (!have_tool("/usr/bin/curl"))
        return;
    int port;
    pid_t child = serve_in_child(&port);
    if (port <= 0)
        stop_child(child);
    CHECK(port > 0);
    char out[512];
    int rc =
        run_tool("/usr/bin/curl -s -m 5 -0 -H 'Connection: keep-alive' "
                 "http://127.0.0.1:%d/ http://127.0.0.1:%d/c -o /dev/null -o /dev/null "
                 "-w '%%{http_code} %%{num_connects},'",
                 port, out, sizeof out);
    stop_child(child);
    CHECK_EQ(rc, 0);
    CHECK_STR(out, "200 1,200 0,");
}

/* Defect 6 as curl saw it: curl sends "Expect: 100-continue" itself for a
 * body over 1 MiB, and waited its second for a 100 that never came. A
 * 2 MB upload gets its 100, and, echoed by a handler, comes back whole.
 * (The time is printed, not checked: a loaded machine is no stopwatch.) */
TEST(curl_uploads_2_mb_with_expect_100_continue_without_waiting)
{
    if (!have_tool("/usr/bin/curl"))
        return;
    char path[] = "/tmp/taal_upload_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    static char block[1 << 16];
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (char)('a' + i % 26);
    for (int i = 0; i < 32; i++)
        CHECK_EQ(write(fd, block, sizeof block), (ssize_t)sizeof block);
    close(fd);
    int port;
    pid_t child = serve_in_child(&port);
    if (port <= 0)
        stop_child(child);
    CHECK(port > 0);
    char command[512], out[512];
    snprintf(command, sizeof command,
             "/usr/bin/curl -s -m 5 -v -T %s http://127.0.0.1:%%d/echo -o /dev/null "
             "-w '%%{http_code} %%{size_download} %%{time_total}' 2>&1 | "
             "grep -E '^< HTTP|^[0-9]{3} '",
             path);
    int rc = run_tool(command, port, out, sizeof out);
    stop_child(child);
    unlink(path);
    CHECK_EQ(rc, 0);
    CHECK(strstr(out, "< HTTP/1.1 100 Continue\r\n") != NULL);
    CHECK(strstr(out, "< HTTP/1.1 201 Created\r\n") != NULL);
    const char *last = strstr(out, "201 2097152 "); /* the body, back whole */
    CHECK(last != NULL);
    fprintf(stderr, "%.*s s\n", (int)strcspn(last, "\n"), last); /* code, bytes, time */
}

/* Defect 3 as ab saw it: `ab -k` completed 0 of 20,000 requests. */
TEST(ab_with_keep_alive_completes_every_request)
{
    if (!have_tool("/usr/bin/ab"))
        return;
    int port;
    pid_t child = serve_in_child(&port);
    if (port <= 0)
        stop_child(child);
    CHECK(port > 0);
    char out[4096];
    int rc = run_tool("/usr/bin/ab -q -k -s 5 -n 20000 -c 50 http://127.0.0.1:%d/ 2>&1",
                      port, out, sizeof out);
    stop_child(child);
    const char *complete = strstr(out, "Complete requests:");
    const char *failed = strstr(out, "Failed requests:");
    const char *kept = strstr(out, "Keep-Alive requests:");
    const char *rate = strstr(out, "Requests per second:");
    if (rate != NULL)
        fprintf(stderr, "%.*s\n", (int)(strchr(rate, '\n') - rate), rate);
    CHECK_EQ(rc, 0);
    CHECK(complete != NULL && failed != NULL && kept != NULL);
    CHECK_EQ(atoi(complete + 18), 20000);
    CHECK_EQ(atoi(failed + 16), 0);
    CHECK_EQ(atoi(kept + 20), 20000);
}
#else
#define NO_PEERS "curl and ab are run from a forked server's process on POSIX only"
SKIPPED_TEST(curl_reads_a_get_after_a_head_of_a_chunked_route_on_one_connection, NO_PEERS)
SKIPPED_TEST(curl_keeps_an_http_1_0_connection_the_server_says_it_keeps, NO_PEERS)
SKIPPED_TEST(curl_uploads_2_mb_with_expect_100_continue_without_waiting, NO_PEERS)
SKIPPED_TEST(ab_with_keep_alive_completes_every_request, NO_PEERS)
#endif

static const taal_test tests[] = {
    TEST_ENTRY(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused),
    TEST_ENTRY(the_longest_content_type_allowed_is_sent_whole),
    TEST_ENTRY(
        a_flood_of_empty_lines_before_a_request_gets_400_and_the_connection_closes),
    TEST_ENTRY(
        with_few_descriptors_the_default_cap_keeps_idle_connections_from_starving_a_client),
    TEST_ENTRY(a_request_that_never_ends_gets_408_after_the_header_timeout),
    TEST_ENTRY(silent_connections_are_closed_after_their_timeouts),
    TEST_ENTRY(over_the_connection_cap_the_longest_idle_goes_or_the_newcomer_gets_503),
    TEST_ENTRY(
        the_server_survives_a_crowd_and_still_answers_a_normal_client_within_a_second),
    TEST_ENTRY(head_then_get_on_one_connection_both_parse_on_every_kind_of_route),
    TEST_ENTRY(an_http_1_0_client_that_asks_for_keep_alive_is_told_so_and_kept),
    TEST_ENTRY(every_response_has_its_reason_phrase_and_a_date_and_204_and_304_no_length),
    TEST_ENTRY(an_http_1_1_request_without_exactly_one_host_gets_400),
    TEST_ENTRY(a_method_the_route_does_not_allow_gets_405_and_one_unknown_gets_501),
    TEST_ENTRY(routes_match_the_path_without_its_query_exactly_or_by_prefix),
    TEST_ENTRY(a_route_header_that_would_inject_a_field_is_refused),
    TEST_ENTRY(expect_100_continue_is_answered_before_the_body_and_a_refusal_at_once),
    TEST_ENTRY(a_client_still_sending_a_refused_body_gets_its_answer_not_a_reset),
    TEST_ENTRY(a_handler_echoes_a_posted_json_body_and_sets_a_header),
    TEST_ENTRY(a_handler_that_fails_gets_500_and_a_body_too_large_413),
    TEST_ENTRY(a_client_that_goes_away_while_its_handler_runs_leaves_nothing_behind),
    TEST_ENTRY(a_loop_closed_bare_while_a_handler_runs_frees_the_exchange),
    TEST_ENTRY(every_allocation_failure_in_a_handler_exchange_ends_cleanly),
    TEST_ENTRY(curl_reads_a_get_after_a_head_of_a_chunked_route_on_one_connection),
    TEST_ENTRY(curl_keeps_an_http_1_0_connection_the_server_says_it_keeps),
    TEST_ENTRY(curl_uploads_2_mb_with_expect_100_continue_without_waiting),
    TEST_ENTRY(ab_with_keep_alive_completes_every_request),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
