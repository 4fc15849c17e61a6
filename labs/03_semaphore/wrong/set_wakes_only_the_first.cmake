# A wrong answer to exercise 2: set() wakes the first waiting task only, as
# a semaphore's release would. The others wait on, although the event is
# set, until the next set() (which wakes one more).
set(CAUGHT_BY "exercise 2")
lab_edit(chapters/03_semaphore/src/sync.c REPLACE [[
    event->is_set = true;
    while (hand_to_first(&event->waiters))
        ;
]] WITH [[
    event->is_set = true;
    hand_to_first(&event->waiters);
]])
