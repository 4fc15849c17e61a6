# Exercise 6's answer: a GET on a stale keep-alive connection is sent again,
# once. Stale means: the end of the stream came before any byte of this
# request's response (http_parse_eof() says HTTP_CLOSED). The chapter
# already sends a request again when its write failed, or when a response
# before it said "Connection: close" (g->resend, and the `goto send_again`
# after the turn is given back); the answer only says when else to.
lab_edit(chapters/07_io/include/taal_http.h REPLACE [[
    int st;                     /**< the status of the last await */
]] WITH [[
    int st;                     /**< the status of the last await */
    bool retried;               /**< it was sent again after a stale connection */
]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
            g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            host_break(g->host);
            break;
]] WITH [[
            /* closed before a byte of its own response: stale, once more */
            g->resend = rc == HTTP_CLOSED && g->response && !g->retried;
            g->retried = g->retried || g->resend;
            g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            host_break(g->host);
            break;
]])
