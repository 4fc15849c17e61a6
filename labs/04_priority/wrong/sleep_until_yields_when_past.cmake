# A time already past taken for sleep(0): the task yields instead of arming
# its timer, so tasks whose times are past resume in the order they went
# to sleep, not in the order of their times.
lab_edit(chapters/04_priority/src/task.c REPLACE [[
    taal_handle *step = &task->step.handle;
    step->fn.call = task_timer_fired;
    step->data = task;
    step->future = NULL;
    return taal__timer_arm_at(task->future.loop, &task->step, when);
]] WITH [[
    if (when * 1e9 <= (double)taal__now(task->future.loop))
        return TAAL_OK; /* past: a bare yield */
    taal_handle *step = &task->step.handle;
    step->fn.call = task_timer_fired;
    step->data = task;
    step->future = NULL;
    return taal__timer_arm_at(task->future.loop, &task->step, when);
]])
set(CAUGHT_BY "exercise 6")
set(MESSAGE "times_already_past_resume_at_once_in_deadline_order")
