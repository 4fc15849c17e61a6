# A waiter cancelled after release() handed it the permit drops it: the
# permit is no longer on its way, and nobody else gets it. CPython's bug of
# 2015 (python/asyncio#270) and 2022 (gh-90155): with a semaphore of one,
# every other waiter waits for ever.
lab_edit(chapters/05_cancel/src/sync.c REPLACE [[
    if (rc == TAAL_OK || give_back)
        sem->handing--;
    if (give_back)
        semaphore_give(sem);
]] WITH [[
    if (rc == TAAL_OK || give_back)
        sem->handing--; /* a cancelled task's permit goes with it */
]])
set(CAUGHT_BY "exercise 2")
set(MESSAGE "a_waiter_handed_a_permit_then_cancelled_passes_it_to_the_next")
