
/* ---- lab 04, exercise 6: sleeping until a deadline (labs/04_priority) ----- */

/* Arms `timer` for the loop time `when` (seconds), converted as call_at()
 * converts it. Unlike taal__timer_arm(), nothing is added to the clock, so
 * a time already past stays in the past: the timer is due at once, and
 * fires in deadline order among the others due with it. */
int taal__timer_arm_at(taal_loop *loop, taal_timer *timer, double when)
{
    int64_t deadline;
    if (when <= -9.2e9)
        deadline = INT64_MIN;
    else if (when >= 9.2e9)
        deadline = INT64_MAX;
    else
        deadline = (int64_t)(when * 1e9 + (when >= 0 ? 0.5 : -0.5));
    return arm_at(loop, timer, deadline);
}
