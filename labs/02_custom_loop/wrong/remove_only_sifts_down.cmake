# A wrong answer to exercise 1: heap_remove only ever sifts the filler
# down. Right for the root, which is what the loop pops; wrong for a timer
# stopped in the middle whose filler is earlier than the hole's parent.
set(CAUGHT_BY "exercise 1")
set(MESSAGE "a_removed_entry_s_filler_may_have_to_move_up|broken_entry")
lab_edit(chapters/02_custom_loop/src/loop.c REPLACE [[
    if (i > 0 && entry_before(&last, &loop->heap[(i - 1) / 2]))
        sift_up(loop, i);
    else
        sift_down(loop, i);
]] WITH [[
    sift_down(loop, i);
]])
