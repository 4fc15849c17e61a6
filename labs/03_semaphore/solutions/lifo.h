
/* ---- lab 03, exercise 5: a LIFO queue (labs/03_semaphore) ------------------- */
#ifndef TAAL_LIFO_QUEUE_H
#define TAAL_LIFO_QUEUE_H

/** asyncio.LifoQueue: like taal_queue_init(), for a queue whose gets take
 *  the newest item. Everything else is the queue's: put, get, their
 *  _nowait forms, task_done, join, destroy. An item handed to a woken
 *  getter stays its own: a get takes the newest item nobody was handed. */
int taal_lifo_queue_init(taal_queue *queue, taal_loop *loop, size_t maxsize,
                         const char *name);

#endif /* TAAL_LIFO_QUEUE_H */
