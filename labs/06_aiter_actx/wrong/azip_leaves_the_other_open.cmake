# A zip that ends when the shorter iterator ends, as Python's zip() does,
# and closes neither: the longer one is left suspended at a yield, its
# cleanup never run.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
    TAAL_ACLOSE_STATUS(f->closed, f->a);
    if (f->closed != TAAL_OK && f->gen.exit == TAAL_OK)
        f->gen.exit = f->closed;
    TAAL_ACLOSE_STATUS(f->closed, f->b);
    if (f->closed != TAAL_OK && f->gen.exit == TAAL_OK)
        f->gen.exit = f->closed;
]] WITH [[
]])
set(CAUGHT_BY "exercise 4")
set(MESSAGE "pairs_come_one_value_of_each_until_the_shorter_ends_and_both_are_closed")
