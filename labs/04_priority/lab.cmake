# lab.cmake -- lab 04: priorities, cancellable handles, and the loop as a
# simulator. The configuration that cmake/handout.cmake, the handout's
# CMakeLists.txt and grade.cmake read; docs/teaching.md says what each
# setting does. It goes into every handout, so it holds no answers: those
# are in solutions/, which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES cancel ready aging inherit)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES cancel ready aging inherit deadline sleep_until owner)

set(LAB_cancel_TITLE "cancellable handles")
set(LAB_cancel_TASK "Write `taal_timer_cancel`, `taal_handle_cancel` and `taal_timer_when`: a cancelled callback never runs, whether it is armed, due or in the batch being run, and cancelling one that ran is harmless.")
set(LAB_cancel_HOLE cancel)
set(LAB_cancel_TESTS tests/test_cancel.c)
set(LAB_cancel_UNIT_TESTS a_timer_cancelled_before_it_is_due_never_runs
                          of_two_timers_due_together_that_cancel_each_other_exactly_one_runs
                          cancelling_what_already_ran_is_harmless)

set(LAB_ready_TITLE "the priority ready queue")
set(LAB_ready_TASK "Write `taal__ready_push`, `highest_bit` and `highest_ready`: one FIFO per priority and a bitmap of those with work, so that each iteration finds the highest priority with work in a constant number of steps.")
set(LAB_ready_HOLE ready)
set(LAB_ready_TESTS tests/test_ready.c)
set(LAB_ready_UNIT_TESTS higher_priorities_run_first_and_equal_ones_in_order
                         a_task_of_higher_priority_runs_all_its_steps_first)

set(LAB_aging_TITLE "aging")
set(LAB_aging_TASK "Write `pick_level`: strict priority, except that a priority passed over `aging` iterations runs next.")
set(LAB_aging_HOLE aging)
set(LAB_aging_TESTS tests/test_aging.c)
set(LAB_aging_UNIT_TESTS strict_priority_starves_a_low_task_and_aging_bounds_its_wait)

set(LAB_inherit_TITLE "priority inheritance")
set(LAB_inherit_TASK "Write `top_waiter`, `taal__inherited_priority`, `reweigh`, `taal__lend_priority` and `lock_changes_hands`: a lock's holder runs at the priority of its highest waiter, along chains of locks, until it lets go.")
set(LAB_inherit_HOLE inherit)
set(LAB_inherit_TESTS tests/test_inherit.c)
set(LAB_inherit_UNIT_TESTS
    with_inheritance_the_holder_runs_at_the_waiters_priority_until_it_lets_go
    a_task_holding_two_locks_keeps_what_the_other_still_lends_it
    a_priority_is_lent_along_a_chain_of_locks)

set(LAB_deadline_TITLE "earliest deadline first")
set(LAB_deadline_TASK "Add `taal_task_set_deadline` and `taal_task_clear_deadline`: within a priority, tasks with a deadline run first, the earliest first.")
set(LAB_deadline_TESTS tests/test_deadline.c)
set(LAB_deadline_SOLUTION solutions/deadline.cmake)

set(LAB_sleep_until_TITLE "sleeping until a deadline")
set(LAB_sleep_until_TASK "Add `TAAL_SLEEP_UNTIL(when)`: a task sleeps until an absolute loop time; times already past resume at once, in deadline order.")
set(LAB_sleep_until_TESTS tests/test_sleep_until.c)
set(LAB_sleep_until_SOLUTION solutions/sleep_until.cmake)

set(LAB_owner_TITLE "a task's handles, cancelled")
set(LAB_owner_TASK "Add `taal_task_cancel_handles(task)`: cancel every callback and timer a task scheduled that has not run yet, wherever it waits.")
set(LAB_owner_TESTS tests/test_owner.c)
set(LAB_owner_SOLUTION solutions/owner.cmake)
