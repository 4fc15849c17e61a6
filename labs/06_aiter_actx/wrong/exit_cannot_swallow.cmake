# An outcome that ignores the exit's `suppress`: a swallowed error goes on
# all the same, and a swallowed cancellation still ends the task.
lab_edit(chapters/06_aiter_actx/src/actx.c REPLACE [[
    if (rc != TAAL_OK)
        block->status = as_error(rc);
    else if (block->suppress)
        block->status = TAAL_OK;
]] WITH [[
    if (rc != TAAL_OK)
        block->status = as_error(rc);
]])
set(CAUGHT_BY "exercise 3")
set(MESSAGE "the_exit_may_swallow_the_body_s_error_or_replace_it_with_its_own")
