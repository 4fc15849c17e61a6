
/* ---- lab 03, exercise 6: an acquire that refuses to queue (labs/03_semaphore) */

/*
** Load shedding: a task that would only queue behind `max_waiting` others
** is refused at once, so that the caller can say "busy" instead of making
** its client wait. The waiters are counted by walking the list, as the
** deadlock report does: O(waiters), and only when no permit is free. A
** task woken with a permit has left the list, so it does not count.
*/
int taal__semaphore_acquire_limited(taal_semaphore *sem, size_t max_waiting)
{
    if (sem == NULL)
        return TAAL_EINVAL;
    taal_task *task;
    int rc = check_wait(&sem->waiters, &task);
    if (rc != TAAL_OK)
        return rc;
    if (sem->value > 0) {
        sem->value--;
        return TAAL_OK;
    }
    if (waiting(&sem->waiters) >= max_waiting)
        return TAAL_ETOOMANY;
    return park(&sem->waiters, task);
}
