# A drain that returns at once: the writer is paused, and nothing slows it
# down; the server of a slow client buffers until the hard limit refuses.
lab_edit(chapters/07_io/src/stream.c REPLACE [[
    if (!s->paused)
        return TAAL_OK;
    return park(s, &s->wwait, &s->wbusy);
]] WITH [[
    (void)park;
    return TAAL_OK;
]])
set(CAUGHT_BY "exercise 3")
