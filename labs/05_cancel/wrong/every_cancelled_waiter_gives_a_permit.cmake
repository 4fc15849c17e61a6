# Every cancelled waiter "gives back" a permit, whether it was handed one
# or not, and a handed one is not taken off `handing`: a waiter cancelled
# in line makes a permit out of nothing, and the semaphore lets more tasks
# in than it has permits.
lab_edit(chapters/05_cancel/src/sync.c REPLACE [[
    if (rc == TAAL_OK || give_back)
        sem->handing--;
    if (give_back)
        semaphore_give(sem);
]] WITH [[
    if (rc == TAAL_OK)
        sem->handing--;
    if (rc == TAAL_ECANCELLED)
        semaphore_give(sem); /* a cancelled waiter passes its permit on */
]])
set(CAUGHT_BY "exercise 2")
set(MESSAGE "a_waiter_handed_a_permit_then_cancelled_passes_it_to_the_next")
