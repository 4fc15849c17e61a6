# A driver that forgets the `yielded` flag: every suspension of the
# generator is taken for a value, so an await hands the consumer whatever
# the last yield left in `value`, and the task never waits for the sleep.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
        if (rc == TAAL_SUSPENDED) {
            if (!it->yielded)
                return TAAL_SUSPENDED; /* an await: the task waits */
            it->yielded = false;
            it->busy = false;
            return TAAL_OK; /* a yield: the value is in it->value */
        }
]] WITH [[
        if (rc == TAAL_SUSPENDED) {
            it->yielded = false;
            it->busy = false;
            return TAAL_OK;
        }
]])
set(CAUGHT_BY "exercise 1")
set(MESSAGE "an_await_in_the_generator_suspends_the_task_until_it_is_done")
