/* Must not compile: two awaits on one line share one resume point. */
#include "taal.h"

typedef struct twice {
    taal_coro co;
} twice;

int twice_body(taal_coro *self)
{
    twice *f = (twice *)self;
    TAAL_BEGIN(f);
    // clang-format off
    TAAL_YIELD(); TAAL_YIELD();
    // clang-format on
    TAAL_END();
}
