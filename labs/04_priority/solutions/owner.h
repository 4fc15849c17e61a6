
/* ---- lab 04, exercise 7: cancelling a task's handles (labs/04_priority) --- */
#ifndef TAAL_OWNER_H
#define TAAL_OWNER_H

/** Cancels every callback and timer that @p task scheduled (with
 *  taal_call_soon(), taal_call_later(), taal_call_at() or
 *  taal_timer_start(), while it was the running task) and that has not run
 *  yet: armed in the heap, due in the ready queue, or in the batch the loop
 *  is running. Each is cancelled as taal_handle_cancel() and
 *  taal_timer_cancel() cancel it. The task's own step and sleep are not its
 *  handles, nor is anything scheduled again since by someone else. Returns
 *  how many it cancelled (0 or more), TAAL_EINVAL for NULL, TAAL_ECLOSED if
 *  the task's loop has closed. */
int taal_task_cancel_handles(taal_task *task);

#endif /* TAAL_OWNER_H */
