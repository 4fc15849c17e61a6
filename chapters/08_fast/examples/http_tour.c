/*
** http_tour.c -- the grown-up client, one step each: a POST of JSON with a
** request header, a response header read (Location), a redirect followed,
** and a large body streamed in pieces.
**
** Like api_client, it starts its own server on 127.0.0.1 (taal_http_serve,
** a port the kernel picks) and runs the client against it, through one
** session that knows the server as api.example. The server is a tiny JSON
** API, two of its routes handlers (coroutines that make the response):
**
**   POST /api/items       reads {"name": "..."}, keeps the item, answers
**                         201 with the item and its Location
**   GET  /api/items/<id>  the item kept under that id, or 404
**   GET  /old             a fixed 301 to /api/items/42 (its Location is a
**                         header of the route)
**   GET  /big             4 MiB: one 64-byte line, 65,536 times over
**
** Everything it prints is the same on every run: no port, no Date, no
** timing, and not the number of pieces the body came in (that depends on
** how the kernel hands the stream over), only that none was longer than
** TAAL_HTTP_PIECE. The CRC-32 is zlib's, so Python can check it:
**   python3 -c 'import zlib; b = b"taal streams this body in pieces, and"
**       b" the reader sets the pace.\n" * 65536; print(len(b), f"{zlib.crc32(b):08x}")'
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_http.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef _MSC_VER
#define strncasecmp _strnicmp /* MSVC has no <strings.h> */
#else
#include <strings.h>
#endif

/* ---- the server: a tiny JSON API ----------------------------------------- */

/* What the API keeps: the names of the items made, by id from 42. Its
 * handlers find it in their route's handler_data. */
enum { FIRST_ID = 42, MAX_ITEMS = 8, MAX_NAME = 32 };
typedef struct item_store {
    char names[MAX_ITEMS][MAX_NAME];
    int count;
} item_store;

static item_store store;

/* The one field this API reads from a JSON body: "name", a string. No JSON
 * library: it finds "name", a colon (spaces around it allowed) and a
 * string, and does not check the rest of the document. It refuses what it
 * does not understand (escapes, control bytes, a name too long), so that
 * the name is safe to write back into JSON as it is. */
static bool json_name(const char *json, char *name, size_t size)
{
    const char *p = strstr(json, "\"name\"");
    size_t n;
    if (p == NULL)
        return false;
    p += strlen("\"name\"");
    p += strspn(p, " \t\r\n");
    if (*p++ != ':')
        return false;
    p += strspn(p, " \t\r\n");
    if (*p++ != '"')
        return false;
    for (n = 0; p[n] != '"'; n++)
        if ((unsigned char)p[n] < 0x20 || p[n] == '\\' || n + 1 >= size)
            return false; /* also the end of the body: '\0' */
    if (n == 0)
        return false;
    memcpy(name, p, n);
    name[n] = '\0';
    return true;
}

/* Fills @p res with @p status and the JSON text @p json. */
static int answer(taal_http_response *res, int status, const char *json)
{
    int st = taal_http_response_header(res, "Content-Type", "application/json");
    if (st == TAAL_OK)
        st = taal_http_response_write(res, json, strlen(json));
    res->status = status;
    return st;
}

/* Answers with the item @p id of @p items as JSON. */
static int answer_item(taal_http_response *res, int status, const item_store *items,
                       int id)
{
    char json[96];
    snprintf(json, sizeof json, "{\"id\": %d, \"name\": \"%s\"}", id,
             items->names[id - FIRST_ID]);
    return answer(res, status, json);
}

/* Is the media type @p type JSON ("application/json", any case, perhaps
 * with parameters such as "; charset=utf-8")? */
static bool is_json(const char *type)
{
    static const char json[] = "application/json";
    return type != NULL && strncasecmp(type, json, sizeof json - 1) == 0 &&
           strchr("; \t", type[sizeof json - 1]) != NULL; /* also '\0' */
}

/* POST /api/items: a JSON body with a name makes an item. */
static int create_item(const taal_http_server_request *req, taal_http_response *res,
                       item_store *items)
{
    char name[MAX_NAME], location[32];
    int id = FIRST_ID + items->count, st;
    if (!is_json(taal_http_server_request_header(req, "content-type")))
        return answer(res, 415, "{\"error\": \"the body must be JSON\"}");
    if (!json_name(req->body, name, sizeof name))
        return answer(res, 400, "{\"error\": \"expected {\\\"name\\\": \\\"...\\\"}\"}");
    if (items->count == MAX_ITEMS)
        return answer(res, 507, "{\"error\": \"no room for another item\"}");
    snprintf(items->names[items->count], MAX_NAME, "%s", name);
    snprintf(location, sizeof location, "/api/items/%d", id);
    st = taal_http_response_header(res, "Location", location);
    if (st == TAAL_OK)
        st = answer_item(res, 201, items, id);
    if (st == TAAL_OK)
        items->count++; /* kept only if it could be answered */
    return st;
}

/* GET /api/items/<id>: the item, if there is one by that id. */
static int read_item(const taal_http_server_request *req, taal_http_response *res,
                     const item_store *items)
{
    const char *digits = req->path + strlen("/api/items/");
    int id = 0;
    for (const char *d = digits; *d >= '0' && *d <= '9' && id < 1000000; d++)
        id = id * 10 + (*d - '0');
    if (*digits == '\0' || strspn(digits, "0123456789") != strlen(digits) ||
        id < FIRST_ID || id >= FIRST_ID + items->count)
        return answer(res, 404, "{\"error\": \"no such item\"}");
    return answer_item(res, 200, items, id);
}

/* The handlers: coroutines whose frame begins with a taal_http_handler.
 * These two need no fields of their own (handler_size 0) and never
 * await, so each is the plain function above, run as a coroutine. */
static int create_item_body(taal_coro *self)
{
    taal_http_handler *h = (taal_http_handler *)self;
    int st;
    TAAL_BEGIN(h);
    st = create_item(h->request, h->response, h->data);
    if (st != TAAL_OK)
        TAAL_FAIL(st); /* the server answers 500 */
    TAAL_END();
}

static int read_item_body(taal_coro *self)
{
    taal_http_handler *h = (taal_http_handler *)self;
    int st;
    TAAL_BEGIN(h);
    st = read_item(h->request, h->response, h->data);
    if (st != TAAL_OK)
        TAAL_FAIL(st);
    TAAL_END();
}

static const char big_line[] =
    "taal streams this body in pieces, and the reader sets the pace.\n";
enum { BIG_REPEAT = 65536 }; /* 64 bytes, 65,536 times: 4 MiB */

static const char *const moved[] = {"Location", "/api/items/42", NULL};

static const taal_http_route routes[] = {
    {.path = "/api/items",
     .methods = TAAL_HTTP_POST,
     .handler = create_item_body,
     .handler_data = &store},
    {.path = "/api/items/",
     .prefix = true,
     .handler = read_item_body,
     .handler_data = &store},
    {.path = "/old", .status = 301, .headers = moved, .body = "moved\n"},
    {.path = "/big", .status = 200, .body = big_line, .repeat = BIG_REPEAT},
};

/* ---- the client -------------------------------------------------------------- */

/* CRC-32 as zlib computes it (crc32(0, ...) and on), a byte at a time from
 * a table made on first use. */
static uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
    static uint32_t table[256];
    const unsigned char *p = data;
    if (table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    while (n-- > 0)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static const char new_item[] = "{\"name\": \"teapot\"}";

typedef struct http_tour {
    taal_coro co;
    taal_http_site site;
    taal_server *server;
    size_t accepted;
    taal_http_session session;
    taal_block with; /* async with aiohttp.ClientSession() as session: */
    taal_http_request req;
    taal_http_read rd;
    size_t total, longest;
    uint32_t crc;
    int st, with_st;
} http_tour;

/* The value of the response's header field @p name, or "(none)". */
static const char *header(const taal_http_request *req, const char *name)
{
    const char *value = taal_http_get_header(req, name);
    return value != NULL ? value : "(none)";
}

/* The response's status and body, as text ("" if it had none). */
static void print_body(const taal_http_request *req)
{
    printf("  status %d, body %.*s\n", req->status_code, (int)req->body_len,
           req->body != NULL ? req->body : "");
}

static int http_tour_body(taal_coro *self)
{
    http_tour *f = (http_tour *)self;
    TAAL_BEGIN(f);
    f->site =
        (taal_http_site){.routes = routes, .count = sizeof routes / sizeof routes[0]};
    f->st = taal_http_serve(taal_running_loop(), "127.0.0.1", 0, &f->site, &f->server);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->accepted = 0;
    TAAL_ASYNC_WITH(&f->with, &f->session) {
        f->st = taal_http_session_map(&f->session, "api.example", "127.0.0.1",
                                      f->server->port);
        if (f->st != TAAL_OK)
            break;

        /* 1. POST JSON with its Content-Type, and read the Location header:
         *    r = await session.post(url, data=item, headers={...}) and
         *    r.headers["Location"] */
        printf("POST /api/items %s\n", new_item);
        taal_http_request_init(&f->req, &f->session, "POST",
                               "http://api.example/api/items");
        f->st = taal_http_request_header(&f->req, "Content-Type", "application/json");
        if (f->st == TAAL_OK)
            f->st = taal_http_request_body(&f->req, new_item, strlen(new_item));
        if (f->st == TAAL_OK)
            TAAL_AWAIT_STATUS(f->st, &f->req);
        if (f->st == TAAL_OK) {
            printf("  Location: %s\n", header(&f->req, "location"));
            print_body(&f->req);
        }
        taal_http_get_free(&f->req);
        if (f->st != TAAL_OK)
            break;

        /* 2. GET a URL that moved: the redirect is followed, and r.url is
         *    where it led. */
        printf("GET /old\n");
        taal_http_get_init(&f->req, &f->session, "http://api.example/old");
        TAAL_AWAIT_STATUS(f->st, &f->req);
        if (f->st == TAAL_OK) {
            printf("  redirected to %s\n", taal_http_request_url(&f->req));
            print_body(&f->req);
        }
        taal_http_get_free(&f->req);
        if (f->st != TAAL_OK)
            break;

        /* 3. GET a large body as a stream of pieces:
         *    async for piece in r.content.iter_any() */
        printf("GET /big, streamed\n");
        taal_http_get_init(&f->req, &f->session, "http://api.example/big");
        f->req.stream_body = true;
        TAAL_AWAIT_STATUS(f->st, &f->req); /* the status and headers are in */
        if (f->st == TAAL_OK)
            printf("  status %d, Content-Length: %s\n", f->req.status_code,
                   header(&f->req, "content-length"));
        f->total = f->longest = 0;
        f->crc = 0;
        while (f->st == TAAL_OK) {
            taal_http_read_init(&f->rd, &f->req);
            TAAL_AWAIT_STATUS(f->st, &f->rd);
            if (f->st != TAAL_OK || f->rd.end)
                break;
            f->crc = crc32_update(f->crc, f->rd.data, f->rd.len);
            f->total += f->rd.len;
            if (f->rd.len > f->longest)
                f->longest = f->rd.len;
        }
        taal_http_get_free(&f->req);
        if (f->st != TAAL_OK)
            break;
        printf("  %zu bytes, CRC-32 %08lx\n", f->total, (unsigned long)f->crc);
        printf("  no piece longer than %d bytes: %s\n", TAAL_HTTP_PIECE,
               f->longest <= TAAL_HTTP_PIECE ? "yes" : "no");
        f->accepted = f->server->accepted;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->with_st, &f->with);
    if (f->st == TAAL_OK)
        f->st = f->with_st;
    TAAL_SERVER_CLOSE_STATUS(f->with_st, f->server); /* every connection has ended */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    printf("the server accepted %zu connection and answered %zu requests\n", f->accepted,
           f->site.requests);
    TAAL_END();
}

int main(void)
{
    int rc = taal_run(http_tour_body, NULL, sizeof(http_tour), NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "http_tour: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
