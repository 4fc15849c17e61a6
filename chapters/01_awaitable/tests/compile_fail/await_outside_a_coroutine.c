/* Must not compile: an await outside TAAL_BEGIN ... TAAL_END. */
#include "taal.h"

typedef struct child {
    taal_coro co;
} child;

int not_a_coroutine(child *c)
{
    TAAL_AWAIT(c);
    return 0;
}
