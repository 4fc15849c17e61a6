
/* ---- lab 04, exercise 6: sleeping until a deadline (labs/04_priority) ----- */

/* taal__sleep_start() with an absolute time: the task's own timer, armed
 * at `when`, wakes it as a sleep's does. There is no "0 is a bare yield"
 * case: every time, past or not, goes through the heap, which is what
 * keeps past times in deadline order. */
int taal__sleep_until_start(double when)
{
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (when != when) /* NaN */
        return TAAL_EINVAL;
    if (link_linked(&task->step.handle.link) || task->step.index != 0)
        return TAAL_EBUSY; /* already parked on a future: one wait at a time */
    taal_handle *step = &task->step.handle;
    step->fn.call = task_timer_fired;
    step->data = task;
    step->future = NULL;
    return taal__timer_arm_at(task->future.loop, &task->step, when);
}
