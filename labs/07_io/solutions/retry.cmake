# Exercise 6's answer: a GET on a stale keep-alive connection is sent again,
# once. Stale means: writing the request failed (the server's reset came
# first), or the end of the stream came before any byte of this request's
# response (http_parse_eof() says HTTP_CLOSED). A `goto` back to step 1 is
# fine in a coroutine body: the resume points are case labels, and a jump
# between them crosses no initialisation.
lab_edit(chapters/07_io/include/taal_http.h REPLACE [[
    int st;               /**< the status of the last await */
]] WITH [[
    int st;               /**< the status of the last await */
    bool retried;         /**< it was sent again once, on a new connection */
    bool stale;           /**< the connection turned out to be closed */
]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
    /* 1. A connection to the host. */
    while (g->host->stream == NULL) {
]] WITH [[
    /* 1. A connection to the host. */
again:
    g->stale = false;
    while (g->host->stream == NULL) {
]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
    rc = send_request(g);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
]] WITH [[
    rc = send_request(g);
    if ((rc == TAAL_EPIPE || rc == TAAL_ECONNRESET) && !g->retried) {
        g->retried = true; /* the server had closed it: once more, anew */
        goto again;
    }
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
            g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            host_break(g->host);
            break;
]] WITH [[
            g->stale = rc == HTTP_CLOSED && g->response;
            g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            host_break(g->host);
            break;
]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
    g->holding = false;
    taal_lock_release(&g->host->turn);
]] WITH [[
    g->holding = false;
    taal_lock_release(&g->host->turn);
    if (g->stale && !g->retried) {
        g->retried = true;
        goto again;
    }
]])
