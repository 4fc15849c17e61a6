# The close compares the counts without taking its own request back: the
# first timeout converts, but cancelling() stays at 1, and the task's next
# timeout, which opens at 1, finds 2 at its close and thinks that someone
# else cancelled too.
lab_edit(chapters/05_cancel/src/scope.c REPLACE [[
    if (taal_task_uncancel(scope->scope.task) <= (int)scope->cancelling &&
        status == TAAL_ECANCELLED)
        return TAAL_ETIMEDOUT;
]] WITH [[
    if (taal_task_cancelling(scope->scope.task) <= (int)scope->cancelling + 1 &&
        status == TAAL_ECANCELLED)
        return TAAL_ETIMEDOUT;
]])
set(CAUGHT_BY "exercise 3")
set(MESSAGE "a_scope_that_expires_cancels_its_task_and_its_close_says_timed_out")
