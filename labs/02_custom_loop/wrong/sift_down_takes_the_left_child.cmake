# A wrong answer to exercise 1: sift_down always follows the left child,
# even when the right one is earlier, so the heap keeps a later timer above
# an earlier one.
set(CAUGHT_BY "exercise 1")
lab_edit(chapters/02_custom_loop/src/loop.c REPLACE [[
        if (child + 1 < loop->heap_len &&
            entry_before(&loop->heap[child + 1], &loop->heap[child]))
            child++;
]] WITH "")
