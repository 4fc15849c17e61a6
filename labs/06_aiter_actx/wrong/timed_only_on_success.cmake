# A timer whose exit records only bodies that ended well: an error or a
# cancellation leaves the last time, and the count, as they were.
lab_edit(chapters/06_aiter_actx/src/actx.c REPLACE [[
    TAAL_BEGIN(&f->cm);
    f->elapsed = taal_loop_time(taal_running_loop()) - f->started;
]] WITH [[
    TAAL_BEGIN(&f->cm);
    if (f->cm.status != TAAL_OK)
        TAAL_RETURN();
    f->elapsed = taal_loop_time(taal_running_loop()) - f->started;
]])
set(CAUGHT_BY "exercise 5")
set(MESSAGE "an_error_is_timed_recorded_and_not_swallowed")
