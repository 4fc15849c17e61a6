# A stage whose queue has no bound (maxsize 0): the producer never waits,
# and runs the whole upstream before the consumer takes its first value.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
    f->st = taal_queue_init(&f->queue, taal_running_loop(), f->size, "buffered");
]] WITH [[
    f->st = taal_queue_init(&f->queue, taal_running_loop(), 0, "buffered");
]])
set(CAUGHT_BY "exercise 6")
set(MESSAGE "the_producer_runs_ahead_but_never_further_than_the_queue_allows")
