/*
** api_client.c -- the seed's APIClient: several URLs fetched at once over
** one HTTP session, each printing how many characters it received, or the
** error that stopped it, without stopping the others.
**
** The seed fetches three sites on the internet; this program starts its
** own server on 127.0.0.1 (taal_http_serve, a port the kernel picks) and
** fetches from it: four paths of api.example, one of which does not exist
** (404), and one URL of down.example, a port where nothing listens, so
** that the connection is refused. The names are the session's own table
** (taal_http_session_map), never DNS. All five requests start at once;
** the four of api.example take turns on the session's one connection to
** it (the session does not pipeline unless asked: session.pipeline).
**
** The seed prints each line as its fetch finishes, in an order that
** depends on the network; this prints them in URL order once all are
** done, so that the output is the same on every run. Its last line shows
** the keep-alive connection: one connection, four requests.
** docs/seeds/api_client.py is the Python twin (asyncio streams; the seed's
** aiohttp is not in CPython), printing the same on 3.12 and 3.13.
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_http.h"

#include <stdio.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h> /* the loop has started Winsock: taal_loop_init */
#include <ws2tcpip.h>
#define close_socket closesocket
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#define close_socket close
#endif

static const char *const urls[] = {
    "http://api.example/",        "http://api.example/posts",
    "http://api.example/users/1", "http://api.example/missing",
    "http://down.example/",
};
enum { URLS = sizeof urls / sizeof urls[0] };

static const char home[] = "<html><body>taal's API</body></html>\n";
static const char posts[] = "[{\"id\": 1, \"title\": \"await\"}, "
                            "{\"id\": 2, \"title\": \"readiness\"}]\n";
static const char user[] = "{\"id\": 1, \"name\": \"Asha\"}\n";

static const taal_http_route routes[] = {
    {.path = "/", .status = 200, .content_type = "text/html", .body = home},
    {.path = "/posts",
     .status = 200,
     .content_type = "application/json",
     .body = posts,
     .chunked = true}, /* sent chunked */
    {.path = "/users/1", .status = 200, .content_type = "application/json", .body = user},
};

static char lines[URLS][256]; /* each fetch's line, printed in URL order */

/* async def fetch(self, session, url) */
typedef struct fetch {
    taal_coro co;
    taal_http_session *session;
    int i;
    taal_http_get get;
    int st;
} fetch;

static int fetch_body(taal_coro *self)
{
    fetch *f = (fetch *)self;
    TAAL_BEGIN(f);
    taal_http_get_init(&f->get, f->session, urls[f->i]);
    TAAL_AWAIT_STATUS(f->st, &f->get);
    if (f->st == TAAL_OK)
        snprintf(lines[f->i], sizeof lines[f->i], "%s से %zu characters प्राप्त हुए",
                 urls[f->i], f->get.body_len);
    else
        snprintf(lines[f->i], sizeof lines[f->i], "%s से data fetch में error: %s",
                 urls[f->i], taal_strerror(f->st));
    taal_http_get_free(&f->get);
    TAAL_END();
}

/* A port where nothing listens: a socket bound to it, never listening,
 * so that no other program can take the port while this one runs, and a
 * connection to it is refused. */
static int reserve_port(taal_socket *fd)
{
    struct sockaddr_in in = {0};
    socklen_t len = sizeof in;
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    if (*fd == TAAL_INVALID_SOCKET || bind(*fd, (struct sockaddr *)&in, sizeof in) != 0 ||
        getsockname(*fd, (struct sockaddr *)&in, &len) != 0)
        return -1;
    return ntohs(in.sin_port);
}

typedef struct api_client {
    taal_coro co;
    taal_http_site site;
    taal_server *server;
    taal_socket down_fd;
    int down_port;
    taal_http_session session;
    taal_block with; /* async with aiohttp.ClientSession() as session: */
    taal_future *fetches[URLS];
    taal_future *all;
    int st;
} api_client;

/* The local server, and a port where nothing listens. */
static int start(api_client *f)
{
    int rc = taal_http_serve(taal_running_loop(), "127.0.0.1", 0, &f->site, &f->server);
    f->down_port = reserve_port(&f->down_fd);
    if (rc == TAAL_OK && f->down_port < 0)
        rc = TAAL_EIO;
    return rc;
}

/* Inside the session's block: where the two hosts are, and a task per URL,
 * gathered. */
static int fetch_all(api_client *f)
{
    taal_loop *loop = taal_running_loop();
    int rc =
        taal_http_session_map(&f->session, "api.example", "127.0.0.1", f->server->port);
    if (rc == TAAL_OK)
        rc =
            taal_http_session_map(&f->session, "down.example", "127.0.0.1", f->down_port);
    for (int i = 0; i < URLS && rc == TAAL_OK; i++) {
        taal_task *task;
        rc = taal_task_create(loop, fetch_body, &(fetch){.session = &f->session, .i = i},
                              sizeof(fetch), NULL, &task);
        f->fetches[i] = taal_task_future(task);
    }
    if (rc == TAAL_OK) /* await asyncio.gather(*tasks) */
        rc = taal_gather(loop, URLS, f->fetches, &f->all);
    return rc;
}

static int api_client_body(taal_coro *self)
{
    api_client *f = (api_client *)self;
    TAAL_BEGIN(f);
    f->down_fd = TAAL_INVALID_SOCKET;
    f->site =
        (taal_http_site){.routes = routes, .count = sizeof routes / sizeof routes[0]};
    f->st = start(f);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_ASYNC_WITH(&f->with, &f->session) { /* opened here, closed on every way out */
        f->st = fetch_all(f);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_AWAIT_FUTURE(f->all);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    for (int i = 0; i < URLS; i++)
        puts(lines[i]);
    printf("the server accepted %zu connection and answered %zu requests\n",
           f->server->accepted, f->site.requests);
    for (int i = 0; i < URLS; i++)
        taal_future_release(f->fetches[i]);
    taal_future_release(f->all);
    close_socket(f->down_fd);
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server); /* every handler has ended */
    TAAL_END();
}

int main(void)
{
    int rc = taal_run(api_client_body, NULL, sizeof(api_client), NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "api_client: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
