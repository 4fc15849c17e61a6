# The search takes the lowest bit of the map instead of the highest: every
# iteration runs the lowest priority that has work.
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
        int level = highest_bit(loop->ready_levels);
]] WITH [[
        int level = lowest_bit(loop->ready_levels);
]])
set(CAUGHT_BY "exercise 2")
