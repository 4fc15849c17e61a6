# Exercise 3's answer: taal_run_until_complete_timeout() and TAAL_ETIMEDOUT.
# The function is in timeout.c, added at the end of src/loop.c; the rest is
# one line each in the header and in taal_strerror().
lab_edit(chapters/02_custom_loop/include/taal.h REPLACE [[
    TAAL_ESTOPPED = -12,  /**< the loop stopped before the future completed */
]] WITH [[
    TAAL_ESTOPPED = -12,  /**< the loop stopped before the future completed */
    TAAL_ETIMEDOUT = -13, /**< the time given ran out first */
]])
lab_edit(chapters/02_custom_loop/include/taal.h REPLACE [[
int taal_run_until_complete(taal_loop *loop, taal_future *future);
]] WITH [[
int taal_run_until_complete(taal_loop *loop, taal_future *future);

/** taal_run_until_complete() for at most @p seconds of loop time: then it
 *  returns TAAL_ETIMEDOUT and leaves the future running. Its timer is gone
 *  when it returns, whichever way. TAAL_EINVAL for a negative or NaN
 *  delay, besides the errors of taal_run_until_complete(). */
int taal_run_until_complete_timeout(taal_loop *loop, taal_future *future,
                                    double seconds);
]])
lab_edit(chapters/02_custom_loop/src/taal.c REPLACE [[
    case TAAL_ESTOPPED: return "loop stopped before the future completed";
]] WITH [[
    case TAAL_ESTOPPED: return "loop stopped before the future completed";
    case TAAL_ETIMEDOUT: return "timed out";
]])
lab_edit(chapters/02_custom_loop/src/loop.c APPEND timeout.c)
