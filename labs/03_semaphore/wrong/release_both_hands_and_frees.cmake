# A wrong answer to exercise 1, one `else` short: release() hands the permit
# to the first waiter and also puts it back among the free ones. The woken
# task and whoever runs before it (here the releaser, asking again) both
# get it: two tasks hold a semaphore of one, and the releaser barges in.
set(CAUGHT_BY "exercise 1")
set(MESSAGE "check failed")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    if (hand_to_first(&sem->waiters))
        sem->handing++; /* the permit went straight to the waiter */
    else
        sem->value++;
]] WITH [[
    if (hand_to_first(&sem->waiters))
        sem->handing++; /* the permit went straight to the waiter */
    sem->value++;
]])
