# A wrong answer to exercise 2, the one that made a test spin for ten
# minutes before every test had a time limit: the resume label sits before
# the loop, so every send starts the loop again and the coroutine never
# ends. The exercise's tests send a bounded number of times and fail at once.
set(CAUGHT_BY "exercise 2")
set(MESSAGE "rc == TAAL_OK")
lab_edit(labs/01_awaitable/tests/by_hand.c REPLACE [[
    case 0:
        for (f->i = 1; f->i <= f->n; f->i++) {
]] WITH [[
    case 0:
    case 1:
        for (f->i = 1; f->i <= f->n; f->i++) {
]])
lab_edit(labs/01_awaitable/tests/by_hand.c REPLACE [[
        case 1:; /* a jump here skips the loop's first clause, as it should */
]] WITH "")
