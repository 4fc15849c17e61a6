# A wrong answer to exercise 1 that never ends: sift_down moves the child
# up but forgets to follow it down (i = child), so it compares the same two
# entries forever. Every test whose loop pops a timer must fail at its time
# limit instead of hanging the grade.
set(CAUGHT_BY "exercise 1")
set(MESSAGE "stopped at its time limit")
lab_edit(chapters/02_custom_loop/src/loop.c REPLACE [[
        heap_place(loop, i, loop->heap[child]);
        i = child;
]] WITH [[
        heap_place(loop, i, loop->heap[child]);
]])
