
/* ---- lab 03, exercise 5: a LIFO queue (labs/03_semaphore) ------------------- */

/*
** A getter waits only when every item in the ring is handed to a woken
** getter, so the handed items are always the oldest ones, and the newest
** item, if any is free, is never one of them. A LIFO get takes it from the
** end of the ring, which moves nothing; the slot it frees goes to the first
** waiting putter, as in take_item().
*/
static void *take_newest(taal_queue *q)
{
    void *item = q->items[at(q, q->count - 1)];
    q->count--;
    if (q->maxsize > 0 && hand_to_first(&q->putters))
        q->slots_handed++;
    return item;
}

/* What a get without waiting takes: the oldest item nobody was handed, or
 * for a LIFO queue the newest. (A woken getter takes its own, the oldest.) */
static void *take_next(taal_queue *q)
{
    return q->lifo ? take_newest(q) : take_item(q, q->items_handed);
}

int taal_lifo_queue_init(taal_queue *queue, taal_loop *loop, size_t maxsize,
                         const char *name)
{
    int rc = taal_queue_init(queue, loop, maxsize, name);
    if (rc == TAAL_OK)
        queue->lifo = true;
    return rc;
}
