/* Must not compile: two awaits on one line share one resume point. */
#include "taal.h"

typedef struct child {
    taal_coro co;
} child;

typedef struct twice {
    taal_coro co;
    child a, b;
} twice;

int twice_body(taal_coro *self)
{
    twice *f = (twice *)self;
    TAAL_BEGIN(f);
    // clang-format off
    TAAL_AWAIT(&f->a); TAAL_AWAIT(&f->b);
    // clang-format on
    TAAL_END();
}
