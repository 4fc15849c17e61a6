/*
** http.c -- HTTP/1.1 requests per second over one keep-alive connection:
** the chapter's client session against the chapter's server, in one loop.
**
**   async with Session() as session:             # one connection per host
**       for _ in range(n):                       # one request at a time
**           status, body = await session.get(url)
**       await gather(*(worker(n // 16) for _ in range(16)))   # 16 at once
**
** Usage: bench_http [REQUESTS]. The first figure is latency-bound: each
** request waits for the last response. The second has 16 requests in
** flight at once, pipelined on the same connection. Each response is 128
** bytes with a Content-Length.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"
#include "taal_http.h"

#include <string.h>

enum { WORKERS = 16 };

static char body[128];
static const taal_http_route routes[] = {
    {.path = "/", .status = 200, .body = body, .length = sizeof body}};

typedef struct worker {
    taal_coro co;
    taal_http_session *session;
    long n, i;
    taal_http_get get;
    int st;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        taal_http_get_init(&f->get, f->session, "http://bench.example/");
        TAAL_AWAIT_STATUS(f->st, &f->get);
        if (f->st != TAAL_OK || f->get.body_len != sizeof body)
            TAAL_FAIL(f->st != TAAL_OK ? f->st : TAAL_EPROTO);
        taal_http_get_free(&f->get);
    }
    TAAL_END();
}

typedef struct http_main {
    taal_coro co;
    long requests;
    taal_http_site site;
    taal_server *server;
    taal_http_session session;
    worker one;
    taal_future *workers[WORKERS];
    taal_future *all;
    int64_t start;
    int st;
} http_main;

static int http_main_body(taal_coro *self)
{
    http_main *f = (http_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    memset(body, 'h', sizeof body);
    f->site = (taal_http_site){.routes = routes, .count = 1};
    rc = taal_http_serve(loop, "127.0.0.1", 0, &f->site, &f->server);
    if (rc == TAAL_OK)
        rc = taal_http_session_open(&f->session);
    if (rc == TAAL_OK)
        rc = taal_http_session_map(&f->session, "bench.example", "127.0.0.1",
                                   f->server->port);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    f->session.pipeline = WORKERS; /* pipelined, as measured: the default is 1 */

    f->start = bench_now_ns();
    f->one = (worker){.session = &f->session, .n = f->requests};
    taal_coro_init(&f->one.co, worker_body);
    TAAL_AWAIT(&f->one);
    bench_metric("requests_one_at_a_time",
                 (double)f->requests * 1e9 / (double)(bench_now_ns() - f->start),
                 "per_s");

    f->start = bench_now_ns();
    for (int i = 0; i < WORKERS; i++) {
        taal_task *task;
        worker w = {.session = &f->session, .n = f->requests / WORKERS};
        rc = taal_task_create(loop, worker_body, &w, sizeof w, NULL, &task);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        f->workers[i] = taal_task_future(task);
    }
    rc = taal_gather(loop, WORKERS, f->workers, &f->all);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    bench_metric("requests_16_at_once",
                 (double)(f->requests / WORKERS * WORKERS) * 1e9 /
                     (double)(bench_now_ns() - f->start),
                 "per_s");
    for (int i = 0; i < WORKERS; i++)
        taal_future_release(f->workers[i]);
    taal_future_release(f->all);
    taal_http_session_close(&f->session);
    bench_metric("connections", (double)f->server->accepted, "count");
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server);
    TAAL_END();
}

int main(int argc, char **argv)
{
    http_main frame = {0};
    frame.requests = bench_arg(argc, argv, 1, 100000, WORKERS, 1000000000);
    printf("# http: %ld GET requests, keep-alive, one at a time and 16 at once\n",
           frame.requests);
    return bench_main("bench_http", http_main_body, &frame, sizeof frame);
}
