# lab.cmake -- lab 02: the event loop. The configuration that
# cmake/handout.cmake, the handout's CMakeLists.txt and grade.cmake read;
# docs/teaching.md says what each setting does. It goes into every handout,
# so it holds no answers: those are in solutions/, which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES heap gather)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES heap gather timeout deadlock)

set(LAB_heap_TITLE "the timer heap")
set(LAB_heap_TASK "Write `sift_up`, `sift_down` and `heap_remove`: the min-heap of timers, ordered by (deadline, arming order).")
set(LAB_heap_HOLE heap)
set(LAB_heap_TESTS tests/test_heap.c)
set(LAB_heap_UNIT_TESTS timers_fire_in_deadline_order_and_equal_deadlines_in_arming_order
                        the_timer_heap_agrees_with_a_sorted_reference)

set(LAB_gather_TITLE "gather")
set(LAB_gather_TASK "Write `gather_collect`: collect one child of a gather, and finish the gather on the first error or the last result.")
set(LAB_gather_HOLE gather)
set(LAB_gather_TESTS tests/test_gather.c)

set(LAB_timeout_TITLE "a timeout for run_until_complete")
set(LAB_timeout_TASK "Add `taal_run_until_complete_timeout()` and the code `TAAL_ETIMEDOUT`, named \"timed out\".")
set(LAB_timeout_TESTS tests/test_timeout.c)
set(LAB_timeout_SOLUTION solutions/timeout.cmake)

set(LAB_deadlock_TITLE "the deadlock report")
set(LAB_deadlock_TASK "Make the deadlock report name the children a gather still waits for.")
set(LAB_deadlock_TESTS tests/test_deadlock.c)
set(LAB_deadlock_SOLUTION solutions/deadlock.cmake)
