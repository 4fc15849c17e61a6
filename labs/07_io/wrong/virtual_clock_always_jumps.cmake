# The virtual clock jumps to the next timer even when I/O came: a peer's
# answer and a timeout due later look simultaneous, and time runs ahead.
lab_edit(chapters/07_io/src/io.c REPLACE [[
        if (made_ready == 0)
            jump(loop, deadline);
]] WITH [[
        jump(loop, deadline);
]])
set(CAUGHT_BY "exercise 2")
set(MESSAGE "on_the_virtual_clock_io_that_came_keeps_time_still")
