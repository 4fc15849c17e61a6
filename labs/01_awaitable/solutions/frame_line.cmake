# Exercise 3's answer: awaitable_steps prints the value its frame holds,
# and the tutorial's documented output says so too.
lab_edit(chapters/01_awaitable/examples/awaitable_steps.c REPLACE [[
        printf("driver: finished after send #%d: %s\n", n, taal_strerror(rc));
]] WITH [[
        printf("driver: finished after send #%d: %s\n", n, taal_strerror(rc));
        printf("driver: the frame holds %d\n", coro.awaitable.result);
]])
lab_edit(docs/01_awaitable.md REPLACE [[
driver: finished after send #2: ok
```
]] WITH [[
driver: finished after send #2: ok
driver: the frame holds 42
```
]])
