
/* ---- lab 03, exercise 4: a condition variable (labs/03_semaphore) ----------- */

/*
** asyncio's Condition, built on a lock and a semaphore of no permits.
** wait() counts itself as waiting, gives the lock up and waits for a
** permit of `wakeups`; notify(n) releases one permit for each of the first
** n waiting tasks, and each release hands it to the first of them, so they
** wake in the order they came. A notify with nobody waiting releases
** nothing: it is not remembered, as asyncio's is not. A woken task then
** queues for the lock like anyone else, behind the notifier who holds it.
*/
int taal_condition_init(taal_condition *cond, taal_loop *loop, taal_lock *lock,
                        const char *name)
{
    if (cond == NULL || lock == NULL || !waiters_valid(&lock->sem.waiters) ||
        lock->sem.waiters.future.loop != loop)
        return TAAL_EINVAL;
    int rc = taal_semaphore_init(&cond->wakeups, loop, 0, name);
    if (rc != TAAL_OK)
        return rc;
    cond->lock = lock;
    cond->waiting = 0;
    cond->name = name;
    return TAAL_OK;
}

static bool condition_valid(const taal_condition *cond)
{
    return cond != NULL && cond->lock != NULL && waiters_valid(&cond->wakeups.waiters);
}

int taal_condition_notify(taal_condition *cond, size_t n)
{
    if (!condition_valid(cond))
        return TAAL_EINVAL;
    if (!taal_lock_locked(cond->lock))
        return TAAL_ESTATE; /* asyncio: "cannot notify on un-acquired lock" */
    for (; n > 0 && cond->waiting > 0; n--) {
        cond->waiting--;
        int rc = taal_semaphore_release(&cond->wakeups);
        if (rc != TAAL_OK)
            return rc;
    }
    return TAAL_OK;
}

int taal_condition_notify_all(taal_condition *cond)
{
    return taal_condition_notify(cond, SIZE_MAX);
}

int taal_condition_destroy(taal_condition *cond)
{
    if (!condition_valid(cond))
        return TAAL_EINVAL;
    int rc = taal_semaphore_destroy(&cond->wakeups);
    if (rc == TAAL_OK)
        cond->lock = NULL;
    return rc;
}

static int condition_wait_body(taal_coro *self)
{
    taal_condition_wait *f = (taal_condition_wait *)self;
    TAAL_BEGIN(f);
    if (!condition_valid(f->cond))
        TAAL_FAIL(TAAL_EINVAL);
    if (!taal_lock_locked(f->cond->lock))
        TAAL_FAIL(TAAL_ESTATE); /* asyncio: "cannot wait on un-acquired lock" */
    f->cond->waiting++;
    taal_lock_release(f->cond->lock);
    TAAL_ACQUIRE(&f->cond->wakeups); /* until a notify hands it a permit */
    TAAL_LOCK(f->cond->lock);
    TAAL_END();
}

int taal_condition_wait_init(taal_condition_wait *wait, taal_condition *cond)
{
    if (wait == NULL)
        return TAAL_EINVAL;
    wait->cond = cond;
    return taal_coro_init(&wait->co, condition_wait_body);
}
