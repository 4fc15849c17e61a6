# A cancel that only marks the task, wherever it is: a sleeping task is told
# when its timer fires, seconds later, and a task awaiting another task
# waits for it to end of its own accord. asyncio's _must_cancel alone.
lab_edit(chapters/05_cancel/src/task.c REPLACE [[
    if (task->future.loop->current == task)
        task->cancel = TAAL_CANCEL_REQUESTED; /* running: acted on when it stops */
    else
        cancel_where_waiting(task);
    return true;
]] WITH [[
    task->cancel = TAAL_CANCEL_REQUESTED; /* told at its next step, whenever that is */
    return true;
]])
set(CAUGHT_BY "exercise 1")
set(MESSAGE "a_sleeping_task_is_woken_at_once_and_its_timer_leaves_the_heap")
