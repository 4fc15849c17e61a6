# lab.cmake -- lab 03: the semaphore, and what its waiter queue gives. The
# configuration that cmake/handout.cmake, the handout's CMakeLists.txt and
# grade.cmake read; docs/teaching.md says what each setting does. It goes
# into every handout, so it holds no answers: those are in solutions/,
# which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES semaphore event queue)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES semaphore event queue condition lifo limit)

set(LAB_semaphore_TITLE "the semaphore")
set(LAB_semaphore_TASK "Write `taal__semaphore_acquire`, `semaphore_give` and `taal_semaphore_release`: a free permit is taken at once (unless a woken task has not run yet), a released one is handed to the first waiting task, and a bounded semaphore refuses one release too many.")
set(LAB_semaphore_HOLE semaphore)
set(LAB_semaphore_TESTS tests/test_semaphore.c)
set(LAB_semaphore_UNIT_TESTS
    a_released_permit_goes_to_the_first_waiter_not_to_whoever_runs_first
    a_bounded_semaphore_refuses_a_release_too_many_and_stays_as_it_was)

set(LAB_event_TITLE "the event")
set(LAB_event_TASK "Write `taal_event_set` and `taal__event_wait`: a wait on a set event returns at once, and set() wakes every waiting task, in order.")
set(LAB_event_HOLE event)
set(LAB_event_TESTS tests/test_event.c)
set(LAB_event_UNIT_TESTS setting_an_event_wakes_every_waiter_even_if_it_is_cleared_at_once)

set(LAB_queue_TITLE "the queue without waiting")
set(LAB_queue_TASK "Write `taal_queue_put_nowait` and `taal_queue_get_nowait`, and the ends of `taal__queue_put` and `taal__queue_get`, which wait (`park`) where the first two say `TAAL_EFULL` or `TAAL_EEMPTY`: full and empty, and no taking what was handed to a woken task.")
set(LAB_queue_HOLE queue)
set(LAB_queue_TESTS tests/test_queue.c)
set(LAB_queue_UNIT_TESTS put_and_get_without_waiting_are_fifo_and_say_full_and_empty
                         a_put_hands_its_item_to_the_first_waiting_getter)

set(LAB_condition_TITLE "a condition variable")
set(LAB_condition_TASK "Add `taal_condition`, asyncio's `Condition`, on top of `taal_lock`: `wait` gives the lock up until a `notify`, and holds it again when it returns.")
set(LAB_condition_TESTS tests/test_condition.c)
set(LAB_condition_SOLUTION solutions/condition.cmake)

set(LAB_lifo_TITLE "a LIFO queue")
set(LAB_lifo_TASK "Add `taal_lifo_queue_init`, asyncio's `LifoQueue`: a get takes the newest item, and an item handed to a woken task stays its own.")
set(LAB_lifo_TESTS tests/test_lifo.c)
set(LAB_lifo_SOLUTION solutions/lifo.cmake)

set(LAB_limit_TITLE "an acquire that refuses to queue")
set(LAB_limit_TASK "Add `TAAL_ACQUIRE_LIMITED`, an acquire that fails at once with a new code `TAAL_ETOOMANY` when too many tasks wait already.")
set(LAB_limit_TESTS tests/test_limit.c)
set(LAB_limit_SOLUTION solutions/limit.cmake)
