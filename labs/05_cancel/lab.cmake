# lab.cmake -- lab 05: cancellation, timeouts, shield and task groups. The
# configuration that cmake/handout.cmake, the handout's CMakeLists.txt and
# grade.cmake read; docs/teaching.md says what each setting does. It goes
# into every handout, so it holds no answers: those are in solutions/,
# which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES deliver giveback timeout taskgroup)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES deliver giveback timeout taskgroup cancel_on_error)

set(LAB_deliver_TITLE "delivering a cancellation")
set(LAB_deliver_TASK "Write `taal_task_cancel`, `cancel_where_waiting`, `wake_to_cancel` and `deliver_cancel`: a request counts, takes the task off whatever it waits on (a sleep, a line, a future it cancels in turn), and is delivered as TAAL_ECANCELLED at the await the task resumes at; a task that never started runs none of its body.")
set(LAB_deliver_HOLE deliver)
set(LAB_deliver_TESTS tests/test_deliver.c)
set(LAB_deliver_UNIT_TESTS a_task_cancelled_before_its_first_step_runs_none_of_its_body
                           a_sleeping_task_is_cancelled_at_once_and_its_timer_leaves_the_heap
                           two_cancels_before_delivery_are_delivered_once)

set(LAB_giveback_TITLE "cancel-safe waiters")
set(LAB_giveback_TASK "Write the cancellation part of `woken` and the give-back of `taal__semaphore_acquired` and `taal__queue_placed`: a waiter cancelled after it was handed a permit, the lock or a free slot passes it on to the next in line, or back, and one cancelled in line gives back nothing.")
set(LAB_giveback_HOLE giveback)
set(LAB_giveback_TESTS tests/test_giveback.c)
set(LAB_giveback_UNIT_TESTS a_semaphore_keeps_its_permits_whatever_state_a_waiter_is_cancelled_in
                            a_lock_is_never_lost_whatever_state_a_waiter_is_cancelled_in)

set(LAB_timeout_TITLE "the timeout scope")
set(LAB_timeout_TASK "Write `timeout_fired` and the end of `taal_timeout_close`: the deadline cancels the scope's task, and the close takes that cancel back and turns the cancellation into TAAL_ETIMEDOUT only if it was this scope's alone.")
set(LAB_timeout_HOLE timeout)
set(LAB_timeout_TESTS tests/test_timeout.c)
set(LAB_timeout_UNIT_TESTS a_scope_that_expires_turns_the_cancellation_into_a_timeout
                           nested_scopes_that_fire_together_convert_once_at_the_outer_one)

set(LAB_taskgroup_TITLE "the task group's rules")
set(LAB_taskgroup_TASK "Write `tg_child_failed` and `tg_end`: the first failure cancels the siblings and the parent's body; the join takes the group's cancel back and reports TAAL_EGROUP, TAAL_ECANCELLED or TAAL_OK as asyncio 3.13 does.")
set(LAB_taskgroup_HOLE taskgroup)
set(LAB_taskgroup_TESTS tests/test_taskgroup.c)
set(LAB_taskgroup_UNIT_TESTS two_failing_children_are_both_reported_and_stop_the_rest
                             an_outside_cancel_during_a_failing_join_is_not_lost)

set(LAB_cancel_on_error_TITLE "a gather that stops at a failure")
set(LAB_cancel_on_error_TASK "Add the flag `TAAL_CANCEL_ON_ERROR` to `taal_gather_ex`: the first child to fail cancels every child not done, and the gather ends with that failure at once; a child cancelled on its own stops nothing.")
set(LAB_cancel_on_error_TESTS tests/test_cancel_on_error.c)
set(LAB_cancel_on_error_SOLUTION solutions/cancel_on_error.cmake)
