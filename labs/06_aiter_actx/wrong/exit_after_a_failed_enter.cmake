# A failed enter that still leads to the exit: the body is skipped, but the
# exit runs for a resource that was never acquired (a semaphore would be
# released once too often).
lab_edit(chapters/06_aiter_actx/src/actx.c REPLACE [[
    if (rc != TAAL_OK)
        return with_failed(block, as_error(rc));
]] WITH [[
    if (rc != TAAL_OK) {
        block->phase = TAAL_BLOCK_LEAVING;
        block->status = as_error(rc);
        return TAAL_OK;
    }
]])
set(CAUGHT_BY "exercise 3")
set(MESSAGE "a_failed_enter_runs_neither_the_body_nor_the_exit")
