# A driver that sends the generator back to its cleanup only when its body
# ran to its end: a generator that fails, or is cancelled, never cleans up.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
    if (gen->in_finally)
        return false;
    gen->exit = rc == TAAL_STOP ? TAAL_ESTRAY : rc;
]] WITH [[
    if (gen->in_finally || (rc != TAAL_OK && rc != TAAL_EGENEXIT))
        return false;
    gen->exit = rc;
]])
set(CAUGHT_BY "exercise 1")
set(MESSAGE "an_error_of_the_body_runs_the_cleanup_then_reaches_the_consumer")
