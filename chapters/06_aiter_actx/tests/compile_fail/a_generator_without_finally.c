/* Must not compile: an async generator's body without its cleanup section
 * (TAAL_AGEN_FINALLY), where a close would have nowhere to go. */
#include "taal.h"

typedef struct ticker {
    taal_aiter gen;
    int i;
} ticker;

int ticker_body(taal_coro *self)
{
    ticker *f = (ticker *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 0; f->i < 3; f->i++)
        TAAL_AGEN_YIELD(&f->i);
    TAAL_AGEN_END();
}
