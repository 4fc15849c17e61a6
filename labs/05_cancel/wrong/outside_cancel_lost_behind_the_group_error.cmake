# Python 3.12's TaskGroup: a cancel from outside that arrives while a
# failing group joins is taken as the group's own, and lost behind
# TAAL_EGROUP; the parent's next await does not see it. 3.13 fixed it
# (gh-116720), and so does taal: the join makes it again.
lab_edit(chapters/05_cancel/src/scope.c REPLACE [[
    if (taal_task_cancelling(parent) > 0) {
        taal_task_uncancel(parent);
        taal_task_cancel(parent);
    }
    return TAAL_EGROUP;
]] WITH [[
    return TAAL_EGROUP;
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "an_outside_cancel_during_a_failing_join_is_not_lost")
