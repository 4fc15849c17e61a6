# lab.cmake -- lab 01: the awaitable protocol. The configuration that
# cmake/handout.cmake, the handout's CMakeLists.txt and grade.cmake read;
# docs/teaching.md says what each setting does. It goes into every handout,
# so it holds no answers: those are in solutions/, which never does.

# The holes the students' handout stubs: LAB(name) markers in the chapter,
# or in the lab's own test files (by_hand is in tests/by_hand.c).
set(LAB_HOLES send by_hand)

# The exercises, in the tutorial's order: exercise 1, 2, ...
set(LAB_EXERCISES send by_hand frame_line)

set(LAB_send_TITLE "taal_send")
set(LAB_send_TASK "Write `taal_send`, Python's `coro.send(None)`, from its contract in `include/taal.h`.")
set(LAB_send_HOLE send)
set(LAB_send_TESTS tests/test_send.c)
set(LAB_send_UNIT_TESTS resuming_a_finished_coroutine_is_an_error
                        null_and_uninitialised_arguments_are_invalid
                        a_coroutine_cannot_await_itself
                        a_hand_written_body_returning_nonsense_is_invalid)

set(LAB_by_hand_TITLE "a loop expanded by hand")
set(LAB_by_hand_TASK "Write `counter_by_hand`, a coroutine with a yield inside a `for` loop, without the macros.")
set(LAB_by_hand_HOLE by_hand)
set(LAB_by_hand_TESTS tests/by_hand.c)
# What the exercise rewrites: counter_body (the macros' version), in the
# way awaitable_steps.c writes coroutines. Lines of the answer found in
# these are the exercise's statement, not its answer (cmake/handout.cmake).
set(LAB_by_hand_GIVEN chapters/01_awaitable/tests/test_coro.c
                      chapters/01_awaitable/examples/awaitable_steps.c)

set(LAB_frame_line_TITLE "the driver and its page")
set(LAB_frame_line_TASK "Make `awaitable_steps` print `driver: the frame holds 42` at the end, and update the tutorial's documented output to match.")
set(LAB_frame_line_OUTPUTS tests/frame_line.md)
set(LAB_frame_line_SOLUTION solutions/frame_line.cmake)
