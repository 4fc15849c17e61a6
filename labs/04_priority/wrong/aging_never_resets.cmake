# The priority that aged and ran keeps its count: from then on it has
# always "waited long enough", and runs in every iteration it has work,
# starving the priorities above it in turn.
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
    loop->waited[chosen] = 0;
    return chosen;
]] WITH [[
    return chosen;
]])
set(CAUGHT_BY "exercise 3")
set(MESSAGE "hhhhlhhhhlhhhhl")
