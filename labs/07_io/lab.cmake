# lab.cmake -- lab 07: readiness I/O, streams and HTTP. The configuration
# that cmake/handout.cmake, the handout's CMakeLists.txt and grade.cmake
# read; docs/teaching.md says what each setting does. It goes into every
# handout, so it holds no answers: those are in solutions/, which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter.
set(LAB_HOLES readiness io_wait pressure pipeline retry)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES readiness io_wait pressure pipeline raise_status retry)

set(LAB_readiness_TITLE "readiness to callbacks")
set(LAB_readiness_TASK "Write `taal__io_ready`: a watcher the kernel found ready has its reader and writer made ready, once each, if it waits for them.")
set(LAB_readiness_HOLE readiness)
set(LAB_readiness_TESTS tests/test_ready.c)
set(LAB_readiness_UNIT_TESTS a_reader_runs_in_the_iteration_that_polls_when_its_descriptor_is_readable
                         a_hang_up_wakes_the_reader_which_reads_the_end)

set(LAB_io_wait_TITLE "the wait")
set(LAB_io_wait_TASK "Write `taal__io_wait`: block in the poll until I/O or the next timer, rounding the timeout up; on the virtual clock, jump only after a grace in which nothing came.")
set(LAB_io_wait_HOLE io_wait)
set(LAB_io_wait_TESTS tests/test_wait.c)
set(LAB_io_wait_UNIT_TESTS the_virtual_clock_jumps_to_the_next_timer_only_when_no_io_came
                        the_real_clock_waits_in_the_poll_for_the_next_timer)

set(LAB_pressure_TITLE "back-pressure")
set(LAB_pressure_TASK "Write the `LAB(pressure)` holes of `src/stream.c`: the hard limit of a write, the pause above the high-water mark, the wake-up at the low one, and a drain that waits while paused.")
set(LAB_pressure_HOLE pressure)
set(LAB_pressure_TESTS tests/test_pressure.c)
set(LAB_pressure_UNIT_TESTS
    drain_waits_above_the_high_water_mark_until_the_low_one_and_the_limit_holds
    a_client_that_does_not_read_holds_the_server_in_drain_with_bounded_memory)

set(LAB_pipeline_TITLE "pipelining")
set(LAB_pipeline_TASK "Write the `LAB(pipeline)` lines of `src/http_client.c`: a reader that finds the response of a request given up before it, instead of its own, ends the connection there.")
set(LAB_pipeline_HOLE pipeline)
set(LAB_pipeline_TESTS tests/test_pipeline.c)
set(LAB_pipeline_UNIT_TESTS a_request_given_up_in_line_ends_the_connection_where_its_response_comes)

set(LAB_raise_status_TITLE "raise_for_status")
set(LAB_raise_status_TASK "Add the session option `raise_for_status`: a response whose status is 400 or more ends its request with `TAAL_EHTTPSTATUS`, its body still readable, and the connection goes on.")
set(LAB_raise_status_TESTS tests/test_raise_status.c)
set(LAB_raise_status_SOLUTION solutions/raise_status.cmake)

set(LAB_retry_TITLE "a stale keep-alive connection")
set(LAB_retry_TASK "Write `may_retry` in `src/http_client.c`: a request whose connection ended before any byte of its response is sent again if its method is idempotent, at most `TAAL_HTTP_MAX_RETRIES` times.")
set(LAB_retry_HOLE retry)
set(LAB_retry_TESTS tests/test_retry.c)
set(LAB_retry_UNIT_TESTS a_get_on_a_keep_alive_connection_the_server_closed_is_sent_again
                      retries_are_bounded_and_only_for_idempotent_requests)
