/*
** internal.h -- what the parts of the runtime share and users do not see.
**
** The lists are intrusive, circular and doubly linked, with the list head
** a taal_link like any other: insertion and removal are O(1), never
** allocate, and an element can be removed without knowing which list it
** is in. Every queue of the runtime (the ready queue, each future's
** waiters, the loop's objects) is one of these.
*/
#ifndef TAAL_INTERNAL_H
#define TAAL_INTERNAL_H

#include "taal.h"

/* The struct that contains `member` at address `ptr`. */
#define TAAL_CONTAINER_OF(ptr, type, member) \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

static inline void list_init(taal_link *head)
{
    head->prev = head->next = head;
}

static inline bool list_empty(const taal_link *head)
{
    return head->next == head;
}

static inline bool link_linked(const taal_link *link)
{
    return link->next != NULL;
}

/* Appends `link` (which must be unlinked) at the tail of `head`. */
static inline void list_push_back(taal_link *head, taal_link *link)
{
    link->prev = head->prev;
    link->next = head;
    head->prev->next = link;
    head->prev = link;
}

/* Unlinks `link` from whatever list it is in; harmless if it is in none. */
static inline void link_remove(taal_link *link)
{
    if (!link_linked(link))
        return;
    link->prev->next = link->next;
    link->next->prev = link->prev;
    link->prev = link->next = NULL;
}

/* Moves every element of `from`, in order, to the tail of `to`. */
static inline void list_splice_back(taal_link *to, taal_link *from)
{
    if (list_empty(from))
        return;
    taal_link *first = from->next, *last = from->prev;
    first->prev = to->prev;
    last->next = to;
    to->prev->next = first;
    to->prev = last;
    list_init(from);
}

/* Memory (loop.c). */
void *taal__alloc(size_t size);
void *taal__realloc(void *ptr, size_t size);
void taal__free(void *ptr);

/* Reports (loop.c): printf-style, one line. */
void taal__report(taal_loop *loop, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The loop running in this thread (loop.c), and its current task: read
 * directly on the hot paths of the await macros. */
extern _Thread_local taal_loop *taal__running_loop;

static inline taal_task *taal__current_task(void)
{
    return taal__running_loop == NULL ? NULL : taal__running_loop->current;
}

/* Seconds to a nanosecond delay: TAAL_EINVAL for negative or NaN, and
 * saturating rather than overflowing for absurdly long ones (loop.c). */
int taal__delay_ns(double seconds, int64_t *ns);

/* Heap futures (future.c). */
void taal__future_init_heap(taal_future *future, taal_loop *loop, taal_future_kind kind);
void taal__future_finish(taal_future *future, int status, void *result);
void taal__future_retain(taal_future *future);
void taal__future_unref(taal_future *future);
void taal__future_dispose(taal_future *future); /* unlink everything it holds */
void taal__future_destroy(taal_future *future); /* report if needed, free */
void taal__future_describe(taal_future *future, char *buf, size_t size);

/* Tasks (task.c). */
void taal__task_dispose(taal_task *task);

#endif /* TAAL_INTERNAL_H */
