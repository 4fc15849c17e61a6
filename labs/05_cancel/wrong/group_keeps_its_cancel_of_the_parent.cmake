# The group cancels its parent at the first failure and never takes that
# back: cancelling() stays at 1 after the join, every timeout scope of the
# parent from then on thinks someone else cancelled it, and the group's
# own re-raise of "an outside cancel" cancels the parent again.
lab_edit(chapters/05_cancel/src/scope.c REPLACE [[
        tg->cancelled_parent = false;
        if (taal_task_uncancel(parent) == 0)
            tg->propagate = false;
]] WITH [[
        tg->cancelled_parent = false;
        tg->propagate = false;
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "the_first_failure_cancels_the_siblings_and_the_parents_body")
