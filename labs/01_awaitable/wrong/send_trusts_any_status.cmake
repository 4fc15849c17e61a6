# A wrong answer to exercise 1: taal_send records whatever the body
# returned, so a body returning 7 "finishes" with status 7.
set(CAUGHT_BY "exercise 1")
lab_edit(chapters/01_awaitable/src/taal.c REPLACE [[
    co->status = rc <= 0 ? rc : TAAL_EINVAL;
]] WITH [[
    co->status = rc;
]])
