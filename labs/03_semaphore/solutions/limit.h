
/* ---- lab 03, exercise 6: an acquire that refuses to queue (labs/03_semaphore) */
#ifndef TAAL_ACQUIRE_LIMITED_H
#define TAAL_ACQUIRE_LIMITED_H

/** @cond INTERNAL */
int taal__semaphore_acquire_limited(taal_semaphore *sem, size_t max_waiting);
/** @endcond */

/** `await sem.acquire()` that refuses to queue behind too many: takes a
 *  free permit at once; otherwise waits, as TAAL_ACQUIRE does, if fewer
 *  than @p max_waiting tasks wait already, and else fails at once with
 *  TAAL_ETOOMANY, having changed nothing (0: never wait). Tasks woken with
 *  a permit do not count as waiting. Status form. */
#define TAAL_ACQUIRE_LIMITED_STATUS(status_lvalue, sem, max_waiting)                  \
    TAAL__PARK_INTO(status_lvalue, taal__semaphore_acquire_limited(sem, max_waiting), \
                    taal__semaphore_acquired(sem))

/** The same, failing the coroutine on an error. */
#define TAAL_ACQUIRE_LIMITED(sem, max_waiting) \
    TAAL__OR_FAIL(TAAL_ACQUIRE_LIMITED_STATUS, sem, max_waiting)

#endif /* TAAL_ACQUIRE_LIMITED_H */
