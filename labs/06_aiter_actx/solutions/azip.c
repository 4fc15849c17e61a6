
/* ---- lab 06, exercise 4: an async zip (labs/06_aiter_actx) ---------------- */

/* The zip is a generator that iterates two iterators by hand. Its cleanup
 * closes both, whichever way it ended: ran out, failed, or was closed at
 * its yield. */
static int azip_body(taal_coro *self)
{
    taal_azip *f = (taal_azip *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (;;) {
        TAAL_ANEXT_STATUS(f->st, f->a);
        if (f->st != TAAL_OK)
            break;
        f->pair[0] = f->a->value;
        TAAL_ANEXT_STATUS(f->st, f->b);
        if (f->st != TAAL_OK)
            break;
        f->pair[1] = f->b->value;
        TAAL_AGEN_YIELD(f->pair);
    }
    if (f->st != TAAL_STOP)
        TAAL_FAIL(f->st); /* an error: the cleanup runs, then it goes on */
    TAAL_AGEN_FINALLY();
    TAAL_ACLOSE_STATUS(f->closed, f->a);
    if (f->closed != TAAL_OK && f->gen.exit == TAAL_OK)
        f->gen.exit = f->closed;
    TAAL_ACLOSE_STATUS(f->closed, f->b);
    if (f->closed != TAAL_OK && f->gen.exit == TAAL_OK)
        f->gen.exit = f->closed;
    TAAL_AGEN_END();
}

int taal_azip_init(taal_azip *zip, taal_aiter *a, taal_aiter *b)
{
    if (zip == NULL || a == NULL || b == NULL)
        return TAAL_EINVAL;
    zip->a = a;
    zip->b = b;
    zip->pair[0] = zip->pair[1] = NULL;
    return taal_agen_init(&zip->gen, azip_body);
}
