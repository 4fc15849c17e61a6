# The reader who finds a response that is not its own (a request before it
# was given up) reads on as if nothing were wrong: it takes that response
# for its own, and every later request gets the one before it.
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
        if (g->host->next_read != g->ticket) {
            host_break(g->host); /* a request before it was given up */
            continue;
        }
]] WITH [[
        g->ticket = g->host->next_read;
]])
set(CAUGHT_BY "exercise 4")
