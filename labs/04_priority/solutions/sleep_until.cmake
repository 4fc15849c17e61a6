# Exercise 6's answer: TAAL_SLEEP_UNTIL, a sleep to an absolute loop time.
# The macros are in sleep_until.h, added at the end of the header; the
# task side (sleep_until_task.c, at the end of src/task.c) is
# taal__sleep_start() with an absolute deadline, and the loop side
# (sleep_until_loop.c, at the end of src/loop.c) arms the timer at that
# deadline without adding it to the clock. internal.h declares the one
# function they share.
lab_edit(chapters/04_priority/include/taal.h APPEND sleep_until.h)
lab_edit(chapters/04_priority/src/internal.h REPLACE [[
void taal__timer_disarm(taal_loop *loop, taal_timer *timer);
]] WITH [[
void taal__timer_disarm(taal_loop *loop, taal_timer *timer);
int taal__timer_arm_at(taal_loop *loop, taal_timer *timer, double when); /* lab 04 */
]])
lab_edit(chapters/04_priority/src/loop.c APPEND sleep_until_loop.c)
lab_edit(chapters/04_priority/src/task.c APPEND sleep_until_task.c)
