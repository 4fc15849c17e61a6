# The first failure stops the siblings but not the parent's body, which
# sleeps on for work whose result no longer matters: the join comes only
# when the body is over.
lab_edit(chapters/05_cancel/src/scope.c REPLACE [[
    tg_abort(tg);
    tg->cancelled_parent = true;
    taal_task_cancel(tg->scope.task);
]] WITH [[
    tg_abort(tg);
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "the_first_failure_cancels_the_siblings_and_the_parents_body")
