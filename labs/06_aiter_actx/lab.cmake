# lab.cmake -- lab 06: async iterators, async generators and async context
# managers. The configuration that cmake/handout.cmake, the handout's
# CMakeLists.txt and grade.cmake read; docs/teaching.md says what each
# setting does. It goes into every handout, so it holds no answers: those
# are in solutions/, which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES anext aclose with)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES anext aclose with azip timed buffered)

set(LAB_anext_TITLE "the generator's driver")
set(LAB_anext_TASK "Write `taal__anext_start`, `enter_cleanup` and `taal__anext_step`: tell a yield from an await by the `yielded` flag, start an __anext__ over at each call, and send a generator whose body ended before its cleanup back to TAAL__POINT_FINALLY, saying why in `exit`.")
set(LAB_anext_HOLE anext)
set(LAB_anext_TESTS tests/test_anext.c)
set(LAB_anext_UNIT_TESTS a_generator_that_never_awaits_yields_without_suspending_the_task
                         an_error_in_the_generator_runs_its_cleanup_and_reaches_the_consumer
                         a_generator_may_not_raise_stop_it_fails_with_estray)

set(LAB_aclose_TITLE "closing a generator")
set(LAB_aclose_TASK "Write `taal__aclose_start` and `taal__aclose_step`: a generator suspended at a yield runs its cleanup, which may await; one not started, or finished, is closed at once; a yield during the close is TAAL_EIGNORED.")
set(LAB_aclose_HOLE aclose)
set(LAB_aclose_TESTS tests/test_aclose.c)
set(LAB_aclose_UNIT_TESTS aclose_before_the_start_runs_nothing_and_ends_the_generator
                          aclose_mid_way_runs_the_cleanup_once_with_genexit
                          a_yield_during_the_close_is_eignored_and_the_generator_ends_anyway)

set(LAB_with_TITLE "the exit on every path")
set(LAB_with_TASK "Write the cores of `taal__with_enter` and `taal__with_exit`: the block opens only if the enter succeeds; the exit runs on every way out of the body, learns how it ended, and may swallow its error or replace it with its own.")
set(LAB_with_HOLE with)
set(LAB_with_TESTS tests/test_with.c)
set(LAB_with_UNIT_TESTS if_the_enter_fails_neither_the_body_nor_the_exit_runs
                        a_cancel_in_the_body_runs_the_exit_which_may_await
                        an_exit_that_swallows_the_cancellation_lets_the_task_end_normally)

set(LAB_azip_TITLE "an async zip")
set(LAB_azip_TASK "Add `taal_azip_init(z, a, b)`: an async generator of pairs of values of two iterators, which ends when either ends, fails when either fails, and closes both whichever way it ends.")
set(LAB_azip_TESTS tests/test_azip.c)
set(LAB_azip_SOLUTION solutions/azip.cmake)

set(LAB_timed_TITLE "a timing context manager")
set(LAB_timed_TASK "Add `taal_timed_init(t)`: an async context manager whose exit records how long the body took and how it ended, on every path, without swallowing anything.")
set(LAB_timed_TESTS tests/test_timed.c)
set(LAB_timed_SOLUTION solutions/timed.cmake)

set(LAB_buffered_TITLE "a pipeline with back-pressure")
set(LAB_buffered_TASK "Add `taal_buffered_init(b, upstream, size)`: a generator stage that runs its upstream in a task of its own, at most `size` values ahead, and stops that task (closing the upstream) when it is closed.")
set(LAB_buffered_TESTS tests/test_buffered.c)
set(LAB_buffered_SOLUTION solutions/buffered.cmake)
