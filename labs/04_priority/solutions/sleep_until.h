
/* ---- lab 04, exercise 6: sleeping until a deadline (labs/04_priority) ----- */
#ifndef TAAL_SLEEP_UNTIL_H
#define TAAL_SLEEP_UNTIL_H

/** Arms the current task's timer for the loop time @p when (seconds); used
 *  by TAAL_SLEEP_UNTIL. Returns TAAL_OK, TAAL_EINVAL (NaN), TAAL_ENOTASK,
 *  TAAL_EBUSY (the task already waits for something) or TAAL_ENOMEM. */
int taal__sleep_until_start(double when);

/** `await sleep_until(when)` (trio's sleep_until; asyncio has only
 *  call_at): suspends the current task until the loop time @p when, in
 *  seconds, as taal_loop_time() and taal_call_at() count it. A time already
 *  past is due at once: the task still suspends, and resumes in the next
 *  iterations with the other timers due, in deadline order. NaN fails the
 *  coroutine with TAAL_EINVAL. */
#define TAAL_SLEEP_UNTIL(when)                    \
    do {                                          \
        int taal__st;                             \
        TAAL__SLEEP_UNTIL_INTO(taal__st, (when)); \
        if (taal__st != TAAL_OK)                  \
            TAAL_FAIL(taal__st);                  \
    } while (0)

/** Like TAAL_SLEEP_UNTIL, with the outcome in @p status_lvalue. */
#define TAAL_SLEEP_UNTIL_STATUS(status_lvalue, when) \
    TAAL__SLEEP_UNTIL_INTO(status_lvalue, (when))

/** The core (internal): TAAL__SLEEP_INTO with an absolute time. */
#define TAAL__SLEEP_UNTIL_INTO(out, when)      \
    do {                                       \
        (out) = taal__sleep_until_start(when); \
        if ((out) == TAAL_OK) {                \
            taal__self->point = __LINE__;      \
            return TAAL_SUSPENDED;             \
        case __LINE__: (out) = TAAL_OK;        \
        }                                      \
    } while (0)

#endif /* TAAL_SLEEP_UNTIL_H */
