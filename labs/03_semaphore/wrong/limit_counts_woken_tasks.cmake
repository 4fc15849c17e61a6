# A wrong answer to exercise 6: the limit counts the tasks woken with a
# permit as still waiting. They have been served; counting them refuses a
# task that should have queued.
set(CAUGHT_BY "exercise 6")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    if (waiting(&sem->waiters) >= max_waiting)
]] WITH [[
    if (waiting(&sem->waiters) + sem->handing >= max_waiting)
]])
