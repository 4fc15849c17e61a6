# A wrong answer to exercise 4: wait() forgets to give the lock up. Nobody
# can take the lock to notify, and every test with a notifier ends in a
# deadlock report.
set(CAUGHT_BY "exercise 4")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    f->cond->waiting++;
    taal_lock_release(f->cond->lock);
]] WITH [[
    f->cond->waiting++;
]])
