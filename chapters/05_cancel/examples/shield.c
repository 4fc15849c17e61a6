/*
** shield.c -- shield: cancelling the outer await leaves the inner
** operation running.
**
** A payment runs as a task; a checkout awaits it through a shield. When
** main cancels the checkout, the cancellation reaches the shield's outer
** future, which ends cancelled, and stops there: the payment runs on, and
** main collects its receipt. Then a payment that fails, awaited through a
** shield: the failure comes through (and counts as retrieved: the shield
** is what reports it, if nobody looks). docs/seeds/shield.py is the Python
** twin; CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

enum { CARD_DECLINED = TAAL_EUSER }; /* the program's own error */

static const char *name_error(int status)
{
    return status == CARD_DECLINED ? "card declined" : NULL;
}

static double start;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - start;
}

typedef struct payment {
    taal_coro co;
    const char *card;
} payment;

static int payment_body(taal_coro *self)
{
    payment *f = (payment *)self;
    TAAL_BEGIN(f);
    printf("%.1f s: payment with the %s: charging it (2 s)\n", at(), f->card);
    TAAL_SLEEP(2);
    if (f->card[0] == 'o') /* the old card */
        TAAL_FAIL(CARD_DECLINED);
    printf("%.1f s: payment with the %s: done\n", at(), f->card);
    TAAL_RETURN_VALUE("receipt 17");
    TAAL_END();
}

typedef struct checkout {
    taal_coro co;
    taal_task *payment;
    taal_future *outer;
    int st;
} checkout;

static int checkout_body(taal_coro *self)
{
    checkout *f = (checkout *)self;
    TAAL_BEGIN(f);
    f->st = taal_shield(taal_running_loop(), taal_task_future(f->payment), &f->outer);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_AWAIT_FUTURE_STATUS(f->st, f->outer);
    taal_future_release(f->outer);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: checkout: cancelled; the payment goes on\n", at());
    TAAL_FAIL(f->st);
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    taal_task *payment, *checkout;
    taal_future *outer;
    int st;
} main_frame;

static int pay(main_frame *f, const char *card)
{
    return taal_task_create(taal_running_loop(), payment_body, &(payment){.card = card},
                            sizeof(payment), NULL, &f->payment);
}

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    void *receipt;
    TAAL_BEGIN(f);
    start = taal_loop_time(taal_running_loop());
    f->st = pay(f, "new card");
    if (f->st == TAAL_OK)
        f->st = taal_task_create(taal_running_loop(), checkout_body,
                                 &(checkout){.payment = f->payment}, sizeof(checkout),
                                 NULL, &f->checkout);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_SLEEP(1);
    printf("%.1f s: main: cancels the checkout\n", at());
    taal_task_cancel(f->checkout);
    TAAL_AWAIT_TASK_STATUS(f->st, f->checkout);
    taal_task_release(f->checkout);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: main: the checkout ended cancelled\n", at());
    TAAL_AWAIT_TASK(f->payment);
    taal_future_result(taal_task_future(f->payment), &receipt);
    printf("%.1f s: main: the payment went through all the same: %s\n", at(),
           (const char *)receipt);
    taal_task_release(f->payment);

    f->st = pay(f, "old card");
    if (f->st == TAAL_OK)
        f->st = taal_shield(taal_running_loop(), taal_task_future(f->payment), &f->outer);
    taal_task_release(f->payment); /* the shield holds it */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_AWAIT_FUTURE_STATUS(f->st, f->outer);
    taal_future_release(f->outer);
    if (f->st == CARD_DECLINED)
        printf("%.1f s: main: the shield passed the failure on: %s\n", at(),
               taal_strerror(f->st));
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    taal_set_strerror(name_error);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "shield: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
