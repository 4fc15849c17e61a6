# The waiter's priority goes to the lock's holder, but not along the chain:
# when that holder itself waits for a lock, the task holding that one stays
# low, and the waiter waits for whoever outranks it.
lab_edit(chapters/04_priority/src/sync.c REPLACE [[
        taal_lock *lock = lock_waited_for(task);
        task = lock != NULL ? lock->owner : NULL;
]] WITH [[
        task = NULL;
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "a_priority_is_lent_along_a_chain_of_locks_and_given_back")
