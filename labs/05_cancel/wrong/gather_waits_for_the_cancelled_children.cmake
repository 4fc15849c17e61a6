# The first failure cancels the rest, and leaves it to them to end the
# gather: it ends when the first cancelled child does, later, and with
# TAAL_ECANCELLED instead of the failure that stopped it. The caller
# learns that something was cancelled, not what went wrong.
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED)
            cancel_the_rest(g); /* first: finishing may free the gather */
        finish_and_let_go(&g->future, status, NULL);
]] WITH [[
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED) {
            cancel_the_rest(g); /* the cancelled children will end the gather */
            return;
        }
        finish_and_let_go(&g->future, status, NULL);
]])
set(CAUGHT_BY "exercise 5")
set(MESSAGE "the_first_failure_cancels_the_children_not_done_and_ends_the_gather")
