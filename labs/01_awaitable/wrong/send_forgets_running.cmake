# A wrong answer to exercise 1: taal_send never clears `running` after the
# body returns, so the second send of any coroutine is refused as "already
# running".
set(CAUGHT_BY "exercise 1")
lab_edit(chapters/01_awaitable/src/taal.c REPLACE [[
    int rc = co->body(co);
    co->running = false;
]] WITH [[
    int rc = co->body(co);
]])
