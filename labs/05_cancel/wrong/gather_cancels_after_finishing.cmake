# The answer's two lines the other way round: the gather is finished first,
# and the children not done are cancelled after. Finishing drops the
# gather's own reference; when nobody else holds the gather (its caller
# released it), that was the last one, and cancel_the_rest() reads freed
# memory. An ordinary build passes every test (the freed block still holds
# its old values); only the grade's sanitizer pass sees it, as a
# heap-use-after-free in a_gather_nobody_holds_still_cancels_the_rest.
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED)
            cancel_the_rest(g); /* first: finishing may free the gather */
        finish_and_let_go(&g->future, status, NULL);
]] WITH [[
        finish_and_let_go(&g->future, status, NULL);
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED)
            cancel_the_rest(g);
]])
set(CAUGHT_BY "exercise 5")
set(MESSAGE "a_gather_nobody_holds_still_cancels_the_rest\n[^\n]*failed under the sanitizers [^\n]*AddressSanitizer: heap-use-after-free\n[^\n]*\n[^\n]*in gather_collect ")
# A memory mistake: graded with the sanitizer pass (labs/check.cmake),
# which must catch it; without it, it scores full marks.
set(SANITIZE ON)
