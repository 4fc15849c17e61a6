# A wrong answer to exercise 3: get_nowait asks whether the queue holds any
# item, not whether it holds one that nobody was handed. Right after a put
# that woke a getter, it takes that getter's item (and past the end of the
# items, since they are all handed), where it should say TAAL_EEMPTY.
set(CAUGHT_BY "exercise 3")
set(MESSAGE "TAAL_EEMPTY")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    if (items_free(queue) == 0)
        return TAAL_EEMPTY;
]] WITH [[
    if (queue->count == 0)
        return TAAL_EEMPTY;
]])
