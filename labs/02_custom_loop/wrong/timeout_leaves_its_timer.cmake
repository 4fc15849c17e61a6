# A wrong answer to exercise 3: the timer is stopped only when it fired, so
# when the future wins it stays armed, pointing into a stack frame that is
# gone.
set(CAUGHT_BY "exercise 3")
set(MESSAGE "heap_len")
lab_edit(chapters/02_custom_loop/src/loop.c REPLACE [[
    rc = taal_run_until_complete(loop, future);
    taal_timer_stop(loop, &timer);
]] WITH [[
    rc = taal_run_until_complete(loop, future);
]])
