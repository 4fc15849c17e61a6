
/* ---- lab 03, exercise 4: a condition variable (labs/03_semaphore) ----------- */
#ifndef TAAL_CONDITION_H
#define TAAL_CONDITION_H

/** asyncio.Condition, on top of a taal_lock: tasks wait, with the lock
 *  given up, until another task notifies them; each holds the lock again
 *  when its wait returns. Caller storage; nothing is allocated to wait. */
typedef struct taal_condition {
    taal_lock *lock;        /**< the lock it goes with; not owned */
    taal_semaphore wakeups; /**< notify() releases one permit per task it wakes */
    size_t waiting;         /**< tasks in wait() that no notify() has woken */
    const char *name;       /**< for reports, or NULL; not copied */
} taal_condition;

/** Prepares @p cond to go with @p lock. TAAL_EINVAL (NULL, a lock never
 *  initialised or of another loop), TAAL_ECLOSED. */
int taal_condition_init(taal_condition *cond, taal_loop *loop, taal_lock *lock,
                        const char *name);

/** Wakes the first @p n waiting tasks (fewer if fewer wait; a notify with
 *  nobody waiting is not remembered). The lock must be held:
 *  TAAL_ESTATE if it is not. TAAL_EINVAL. */
int taal_condition_notify(taal_condition *cond, size_t n);

/** Wakes every waiting task, in the order they came. */
int taal_condition_notify_all(taal_condition *cond);

/** Forgets @p cond (not its lock); TAAL_EBUSY while tasks wait on it. */
int taal_condition_destroy(taal_condition *cond);

/** The frame of `await cond.wait()`: a coroutine of its own, awaited from
 *  the caller's frame, which holds it (a wait suspends twice: once for the
 *  notify, once for the lock). */
typedef struct taal_condition_wait {
    taal_coro co;
    taal_condition *cond;
} taal_condition_wait;

/** Prepares @p wait to wait on @p cond. TAAL_EINVAL for NULL. */
int taal_condition_wait_init(taal_condition_wait *wait, taal_condition *cond);

/** `await cond.wait()`, status form: gives the lock up, waits for a
 *  notify, takes the lock again. @p wait is a taal_condition_wait frame
 *  field. TAAL_ESTATE if the lock is not held. */
#define TAAL_CONDITION_WAIT_STATUS(status_lvalue, wait, cond) \
    do {                                                      \
        taal_condition_wait_init(wait, cond);                 \
        TAAL_AWAIT_STATUS(status_lvalue, wait);               \
    } while (0)

/** `await cond.wait()`, failing the coroutine on an error. */
#define TAAL_CONDITION_WAIT(wait, cond)       \
    do {                                      \
        taal_condition_wait_init(wait, cond); \
        TAAL_AWAIT(wait);                     \
    } while (0)

#endif /* TAAL_CONDITION_H */
