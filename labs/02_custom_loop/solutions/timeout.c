
/* ---- exercise 3: run_until_complete with a timeout ----------------------------- */

/*
** A timer that stops the loop when the time is up, and says that it did:
** the loop may also stop because the future is done, or because someone
** else called taal_stop(), and only the timer's stop is a timeout. The
** timer lives on this function's stack, so it must be stopped on every way
** out; taal_timer_stop() of a timer that fired already is harmless.
*/
typedef struct time_limit {
    taal_loop *loop;
    bool up;
} time_limit;

static void time_is_up(void *data)
{
    time_limit *limit = data;
    limit->up = true;
    taal_stop(limit->loop);
}

int taal_run_until_complete_timeout(taal_loop *loop, taal_future *future, double seconds)
{
    if (loop == NULL || future == NULL)
        return TAAL_EINVAL;
    time_limit limit = {loop, false};
    taal_timer timer = {0};
    int rc = taal_timer_start(loop, &timer, seconds, time_is_up, &limit);
    if (rc != TAAL_OK)
        return rc;
    rc = taal_run_until_complete(loop, future);
    taal_timer_stop(loop, &timer);
    return rc == TAAL_ESTOPPED && limit.up ? TAAL_ETIMEDOUT : rc;
}
