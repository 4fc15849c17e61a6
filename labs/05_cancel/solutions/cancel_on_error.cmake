# Exercise 5's answer: TAAL_CANCEL_ON_ERROR, a gather that stops at its
# first failure. The flag is declared next to TAAL_RETURN_EXCEPTIONS (4,
# not 2: the chapter's own tests use 2 as a flag that does not exist);
# taal_gather_ex() accepts it, and refuses it together with
# TAAL_RETURN_EXCEPTIONS (that gather does not end at a failure); and
# gather_collect() cancels the children not done before it finishes the
# gather with the failure: before, since finishing drops the gather's own
# reference, which may be its last.
lab_edit(chapters/05_cancel/include/taal.h REPLACE [[
#define TAAL_RETURN_EXCEPTIONS 1u
]] WITH [[
#define TAAL_RETURN_EXCEPTIONS 1u

/** taal_gather_ex() flag (lab 05): the first child to fail (an error other
 *  than TAAL_ECANCELLED) cancels every child that is not done, and the
 *  gather ends with that error at once. A child cancelled on its own stops
 *  nothing. With TAAL_RETURN_EXCEPTIONS: TAAL_EINVAL. */
#define TAAL_CANCEL_ON_ERROR 4u
]])
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
    if (flags & ~TAAL_RETURN_EXCEPTIONS)
        return TAAL_EINVAL;
]] WITH [[
    if ((flags & ~(TAAL_RETURN_EXCEPTIONS | TAAL_CANCEL_ON_ERROR)) ||
        flags == (TAAL_RETURN_EXCEPTIONS | TAAL_CANCEL_ON_ERROR))
        return TAAL_EINVAL;
]])
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
static void gather_collect(gather *g, gather_slot *slot)
{
]] WITH [[
/* TAAL_CANCEL_ON_ERROR: every child not done yet is asked to stop. */
static void cancel_the_rest(gather *g)
{
    for (size_t i = 0; i < g->count; i++)
        if (!taal__future_is_done(g->slots[i].child))
            taal_future_cancel(g->slots[i].child);
}

static void gather_collect(gather *g, gather_slot *slot)
{
]])
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
    if (status != TAAL_OK && !(g->flags & TAAL_RETURN_EXCEPTIONS)) {
        finish_and_let_go(&g->future, status, NULL);
]] WITH [[
    if (status != TAAL_OK && !(g->flags & TAAL_RETURN_EXCEPTIONS)) {
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED)
            cancel_the_rest(g); /* first: finishing may free the gather */
        finish_and_let_go(&g->future, status, NULL);
]])
