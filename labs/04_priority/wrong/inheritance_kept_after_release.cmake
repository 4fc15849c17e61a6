# The old owner is never given its own priority back when the lock changes
# hands: it goes on running at what it was lent, above tasks it should not
# pass.
lab_edit(chapters/04_priority/src/sync.c REPLACE [[
    if (old != next)
        reweigh(old);
]] WITH [[
    (void)old;
]])
set(CAUGHT_BY "exercise 4")
