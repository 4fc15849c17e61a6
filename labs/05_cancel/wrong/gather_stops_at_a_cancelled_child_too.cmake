# Any error stops the rest, a cancellation included: a child cancelled on
# its own (a timeout around it, its own caller) takes all its siblings
# down with it. A task group does not count a child's cancellation as a
# failure, and neither must this gather.
lab_edit(chapters/05_cancel/src/future.c REPLACE [[
        if ((g->flags & TAAL_CANCEL_ON_ERROR) && status != TAAL_ECANCELLED)
]] WITH [[
        if (g->flags & TAAL_CANCEL_ON_ERROR)
]])
set(CAUGHT_BY "exercise 5")
set(MESSAGE "a_child_cancelled_on_its_own_stops_nothing")
