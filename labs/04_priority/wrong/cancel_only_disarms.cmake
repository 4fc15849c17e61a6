# A cancel that only takes an armed timer out of the heap: a timer that is
# already due, waiting in the ready queue or in the batch being run, is
# marked cancelled and runs all the same.
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
    int rc = taal_timer_stop(loop, timer);
    if (rc == TAAL_OK)
        timer->handle.cancelled = true;
    return rc;
]] WITH [[
    if (loop == NULL || timer == NULL)
        return TAAL_EINVAL;
    if (timer->index != 0 && timer->loop_id != loop->id)
        return TAAL_ELOOP;
    if (timer->index != 0)
        taal_timer_stop(loop, timer); /* only while it is armed */
    timer->handle.cancelled = true;
    return TAAL_OK;
]])
set(CAUGHT_BY "exercise 1")
set(MESSAGE "a_due_timer_in_the_batch_being_run_is_cancelled_too")
