# A scope that fired turns any cancellation into a timeout, without asking
# whether someone else asked for one too: a cancel from outside, or from an
# outer scope that fired in the same iteration, is swallowed and becomes
# this scope's TAAL_ETIMEDOUT. asyncio.timeout() was given cancelling()
# counts before it was released (bpo-46771, 2022) to avoid exactly this:
# two timeouts going off at the same time.
lab_edit(chapters/05_cancel/src/scope.c REPLACE [[
    if (taal_task_uncancel(scope->scope.task) <= (int)scope->cancelling &&
        status == TAAL_ECANCELLED)
        return TAAL_ETIMEDOUT;
]] WITH [[
    taal_task_uncancel(scope->scope.task);
    if (status == TAAL_ECANCELLED)
        return TAAL_ETIMEDOUT;
]])
set(CAUGHT_BY "exercise 3")
set(MESSAGE "a_cancellation_from_outside_passes_through_a_scope_that_fired_too")
