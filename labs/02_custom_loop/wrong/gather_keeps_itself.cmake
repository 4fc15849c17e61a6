# A wrong answer to exercise 2 that every other test misses: the gather
# finishes but never drops the reference it holds on itself while pending,
# so it is never freed, and neither are its children, until the loop
# closes (which frees everything, so even AddressSanitizer sees no leak).
# Only a count of the loop's live objects before closing catches it.
set(CAUGHT_BY "exercise 2")
set(MESSAGE "live_objects")
lab_edit(chapters/02_custom_loop/src/future.c REPLACE [[
    if (g->remaining == 0)
        finish_and_let_go(&g->future, TAAL_OK, g->results);
]] WITH [[
    if (g->remaining == 0)
        taal__future_finish(&g->future, TAAL_OK, g->results);
]])
