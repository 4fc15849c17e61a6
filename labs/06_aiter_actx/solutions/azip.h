
/* ---- lab 06, exercise 4: an async zip (labs/06_aiter_actx) ---------------- */
#ifndef TAAL_AZIP_H
#define TAAL_AZIP_H

/** `zip(a, b)` for async iterators: an async generator whose values are
 *  pairs, `void *pair[2]` (its value points to the pair: the values of
 *  @p a and @p b, as each gave them). It takes one value of @p a, then one
 *  of @p b, and yields them together; it ends (TAAL_STOP) as soon as
 *  either has no more, and fails with the first error either gives. Unlike
 *  Python's zip(), it closes both @p a and @p b whichever way it ends,
 *  closed early included, so that the rest of the longer one never runs
 *  with nobody to close it. */
typedef struct taal_azip {
    taal_aiter gen; /**< first: the zip is an async generator */
    taal_aiter *a;  /**< the first iterator */
    taal_aiter *b;  /**< the second */
    void *pair[2];  /**< the value it yields */
    int st;         /**< the last anext's status */
    int closed;     /**< the last close's status */
} taal_azip;

/** Makes @p zip an async generator of the pairs of @p a and @p b (both
 *  initialised, neither iterated by anyone else meanwhile). Returns
 *  TAAL_OK, or TAAL_EINVAL for NULL. */
int taal_azip_init(taal_azip *zip, taal_aiter *a, taal_aiter *b);

#endif /* TAAL_AZIP_H */
