
/* ---- lab 04, exercise 5: earliest deadline first (labs/04_priority) ------- */
#ifndef TAAL_DEADLINE_H
#define TAAL_DEADLINE_H

/** Gives @p task a deadline: the loop time @p when, in seconds, as
 *  taal_loop_time() and taal_call_at() count it. Among the tasks ready at
 *  one priority, those with a deadline run first, the earliest first;
 *  equal deadlines, and tasks without one, keep their FIFO order. Priority
 *  still comes first: a deadline orders a task within its priority only.
 *  A task that is ready moves at once. TAAL_EINVAL for NULL or NaN. */
int taal_task_set_deadline(taal_task *task, double when);

/** Takes the deadline of @p task away: it is FIFO again among the tasks of
 *  its priority. TAAL_EINVAL for NULL. */
int taal_task_clear_deadline(taal_task *task);

#endif /* TAAL_DEADLINE_H */
