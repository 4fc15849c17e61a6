
/* ---- lab 04, exercise 5: earliest deadline first (labs/04_priority) ------- */

/* What a ready handle is ordered by: its task's deadline if it is a task's
 * step (the step, a wake-up or a timer of a task), else none. */
static int64_t deadline_of(const taal_handle *handle)
{
    if (!taal__is_task_step(handle))
        return INT64_MAX;
    return ((const taal_task *)handle->data)->deadline;
}

/*
** Puts `handle` into `fifo` after every handle whose deadline is not later
** than its own: FIFO among equal deadlines, and among handles with none
** (INT64_MAX), which therefore go straight to the tail. The walk starts at
** the tail, so what has no deadline costs what it cost before, and a task
** with one passes only the handles due after it: O(k), where a heap per
** priority would be O(log n) but would cost every push that has none.
*/
static void ready_insert(taal_link *fifo, taal_handle *handle)
{
    int64_t mine = deadline_of(handle);
    taal_link *after = fifo->prev;
    while (after != fifo &&
           deadline_of(TAAL_CONTAINER_OF(after, taal_handle, link)) > mine)
        after = after->prev;
    list_push_back(after->next, &handle->link); /* before the next: after `after` */
}

static int set_deadline(taal_task *task, int64_t deadline)
{
    task->deadline = deadline;
    taal_handle *step = &task->step.handle;
    if (task->future.loop != NULL) /* re-queued in deadline order, if it is ready */
        taal__ready_move(task->future.loop, step, step->priority);
    return TAAL_OK;
}

int taal_task_set_deadline(taal_task *task, double when)
{
    if (task == NULL || when != when) /* NaN */
        return TAAL_EINVAL;
    int64_t deadline;
    if (when <= -9.2e9)
        deadline = INT64_MIN;
    else if (when >= 9.2e9)
        deadline = INT64_MAX - 1; /* INT64_MAX means "none" */
    else
        deadline = (int64_t)(when * 1e9 + (when >= 0 ? 0.5 : -0.5));
    return set_deadline(task, deadline);
}

int taal_task_clear_deadline(taal_task *task)
{
    return task == NULL ? TAAL_EINVAL : set_deadline(task, INT64_MAX);
}
