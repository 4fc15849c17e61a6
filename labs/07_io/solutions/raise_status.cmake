# Exercise 5's answer: raise_for_status. A new code after the chapter's
# last, named in io.c; a flag in the session; and, once a request has read
# its own response, an error status for one of 400 or more. The body stays
# (aiohttp's ClientResponseError keeps the response too), so the check comes
# after the error path that frees it.
lab_edit(chapters/07_io/include/taal.h REPLACE [[
    TAAL_ECONNABORTED = -82  /**< the connection was given up while this request was
                                  queued on it */
};
]] WITH [[
    TAAL_ECONNABORTED = -82, /**< the connection was given up while this request was
                                  queued on it */
    TAAL_EHTTPSTATUS = -83   /**< a response of status 400 or more, with the session's
                                  raise_for_status set (lab 07) */
};
]])
lab_edit(chapters/07_io/src/io.c REPLACE [[
    case TAAL_ECONNABORTED: return "connection aborted";
]] WITH [[
    case TAAL_ECONNABORTED: return "connection aborted";
    case TAAL_EHTTPSTATUS: return "HTTP error status";
]])
lab_edit(chapters/07_io/include/taal_http.h REPLACE [[
    bool open;]] WITH [[
    bool raise_for_status; /**< a status >= 400 is TAAL_EHTTPSTATUS */
    bool open;]])
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
    if (g->st != TAAL_OK) {
        g->status_code = 0; /* no response: no status, headers or body */
        taal_http_get_free(g);
        TAAL_FAIL(g->st);
    }
    TAAL_END();
]] WITH [[
    if (g->st != TAAL_OK) {
        g->status_code = 0; /* no response: no status, headers or body */
        taal_http_get_free(g);
        TAAL_FAIL(g->st);
    }
    if (g->session->raise_for_status && g->status_code >= 400)
        TAAL_FAIL(TAAL_EHTTPSTATUS); /* the response stays readable */
    TAAL_END();
]])
