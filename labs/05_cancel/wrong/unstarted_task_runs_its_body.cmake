# Every delivery marks the task DELIVERING, also when its coroutine never
# started: it then runs its body up to its first await, which says
# cancelled. asyncio throws CancelledError into a coroutine that has not
# run, which then never runs at all.
lab_edit(chapters/05_cancel/src/task.c REPLACE [[
    taal_coro *coro = frame_of(task);
    if (coro->point != 0) {
        task->cancel = TAAL_CANCEL_DELIVERING; /* the next await says so */
        return false;
    }
    coro->point = TAAL_POINT_DONE;
    coro->status = TAAL_ECANCELLED;
    return true;
]] WITH [[
    task->cancel = TAAL_CANCEL_DELIVERING; /* the next await says so */
    return false;
]])
set(CAUGHT_BY "exercise 1")
set(MESSAGE "a_task_cancelled_before_its_first_step_runs_none_of_its_body")
