# A wrong answer to exercise 1 that the chapter's own code had to avoid: a
# bounded semaphore that compares only `value` with its bound. With the
# permit on its way to a woken task, `value` is 0, so one release too many
# passes, and the error comes later, from the innocent task's release.
# (CPython 3.11 to 3.13 behave this way: docs/03_semaphore.md shows it.)
set(CAUGHT_BY "exercise 1")
set(MESSAGE "TAAL_ERELEASE")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    if (sem->bounded && sem->value + sem->handing >= sem->bound)
]] WITH [[
    if (sem->bounded && sem->value >= sem->bound)
]])
