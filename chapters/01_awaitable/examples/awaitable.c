/*
** awaitable.c -- chapter 01's seed program: prints 42.
**
**   asyncio.run(use_custom_awaitable())
**
** There is no event loop yet (that is chapter 02), so main() is the driver:
** it sends into the coroutine until the coroutine finishes.
*/
#include "custom_awaitable.h"

#include <stdio.h>

int main(void)
{
    use_custom_awaitable coro;
    use_custom_awaitable_init(&coro);

    int rc;
    while ((rc = taal_send(&coro.co)) == TAAL_SUSPENDED)
        ; /* a loop would run other coroutines here */

    if (rc != TAAL_OK) {
        fprintf(stderr, "awaitable: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
