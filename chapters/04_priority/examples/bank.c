/*
** bank.c -- the virtual clock as a discrete-event simulator.
**
** A bank with 3 tellers (a semaphore of 3). Customers arrive at random, on
** average 2.5 a minute (a Poisson process: exponential gaps), and each
** takes a teller for a random time, on average a minute (exponential too):
** the queue that queueing theory calls M/M/3, whose mean wait it knows
** exactly (the Erlang C formula). Every customer is a task that sleeps
** through its service; under the virtual clock, time jumps from one event
** to the next, so 200,000 customers, over a thousand hours of the bank's
** time, take a fraction of a second. One virtual second is one minute.
** The program asks for the virtual clock itself, so it is a simulation
** under the tour's real clock too.
**
** The random numbers come from splitmix64, seeded, so every run on every
** machine prints the same lines. The seed's PriorityEventLoop, which sets
** its clock to each handle's time as it pops it, held this idea; nothing
** new in the loop is needed for it.
*/
#include "taal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

enum { TELLERS = 3, CUSTOMERS = 200000, WARM_UP = 2000, BATCHES = 20 };
static const double arrivals_per_minute = 2.5, minutes_per_service = 1.0;

/* ---- randomness -------------------------------------------------------------- */

static uint64_t rng_state = 0x7461616c; /* "taal" */

/* splitmix64: a simple, good 64-bit generator (Steele, Lea, Flood 2014). */
static uint64_t next_random(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* An exponential time with the given mean: -mean * ln(U), U in (0, 1). */
static double exponential(double mean)
{
    double u = ((double)(next_random() >> 11) + 0.5) / 9007199254740992.0; /* 2^53 */
    return -mean * log(u);
}

/* ---- the bank ------------------------------------------------------------------ */

typedef struct bank {
    taal_coro co;
    taal_semaphore tellers;
    taal_event closed;
    long arrived, served;
    double batch_wait[BATCHES];
    long batch_count[BATCHES];
} bank;

typedef struct customer {
    taal_coro co;
    bank *bank;
    long number;
    double arrived;
} customer;

static int customer_body(taal_coro *self)
{
    customer *f = (customer *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE(&f->bank->tellers);
    if (f->number >= WARM_UP) { /* the empty bank at opening is not typical */
        long batch = (f->number - WARM_UP) * BATCHES / (CUSTOMERS - WARM_UP);
        f->bank->batch_wait[batch] += taal_loop_time(taal_running_loop()) - f->arrived;
        f->bank->batch_count[batch]++;
    }
    TAAL_SLEEP(exponential(minutes_per_service));
    taal_semaphore_release(&f->bank->tellers);
    if (++f->bank->served == CUSTOMERS)
        taal_event_set(&f->bank->closed);
    TAAL_END();
}

/* Erlang C: the mean wait in an M/M/c queue with offered load a = lambda/mu. */
static double erlang_c_wait(int c, double lambda, double mu)
{
    double a = lambda / mu, term = 1, sum = 1; /* term = a^k / k! */
    for (int k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / c * c / (c - a); /* a^c/c! * c/(c - a) */
    double p_wait = last / (sum + last);
    return p_wait / (c * mu - lambda);
}

/* The mean of the batch means, and the half-width of its 95% interval. */
static void batch_means(const bank *b, double *mean, double *half_width)
{
    double m[BATCHES], sum = 0, squares = 0;
    for (int i = 0; i < BATCHES; i++) {
        m[i] = b->batch_wait[i] / (double)b->batch_count[i];
        sum += m[i];
    }
    *mean = sum / BATCHES;
    for (int i = 0; i < BATCHES; i++)
        squares += (m[i] - *mean) * (m[i] - *mean);
    double sd = sqrt(squares / (BATCHES - 1));
    *half_width = 2.093 * sd / sqrt(BATCHES); /* Student's t, 19 degrees of freedom */
}

static void print_report(const bank *b)
{
    double mean, half_width;
    double exact = erlang_c_wait(TELLERS, arrivals_per_minute, 1.0 / minutes_per_service);
    batch_means(b, &mean, &half_width);
    printf(
        "a bank with %d tellers; %.1f customers a minute, each served in %.1f minute\n",
        TELLERS, arrivals_per_minute, minutes_per_service);
    printf("simulated %d customers over %.0f hours of the bank's time\n", CUSTOMERS,
           taal_loop_time(taal_running_loop()) / 60);
    printf("mean wait for a teller: %.2f minutes (95%%: +/- %.2f)\n", mean, half_width);
    printf("Erlang C for M/M/%d says: %.2f minutes\n", TELLERS, exact);
    printf("%s\n", fabs(mean - exact) <= half_width
                       ? "they agree, within the sampling error"
                       : "they DISAGREE");
}

static int bank_body(taal_coro *self)
{
    bank *f = (bank *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    taal_semaphore_init(&f->tellers, loop, TELLERS, "tellers");
    taal_event_init(&f->closed, loop, "closed");
    for (f->arrived = 0; f->arrived < CUSTOMERS; f->arrived++) {
        TAAL_SLEEP(exponential(1.0 / arrivals_per_minute));
        rc = taal_task_create(
            loop, customer_body,
            &(customer){.bank = f, .number = f->arrived, .arrived = taal_loop_time(loop)},
            sizeof(customer), NULL, NULL);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    TAAL_EVENT_WAIT(&f->closed);
    print_report(f);
    taal_semaphore_destroy(&f->tellers);
    taal_event_destroy(&f->closed);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* A simulation runs on the virtual clock whatever $TAAL_CLOCK says: on
       the real one, the bank's 1,334 hours would take 22 hours. */
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL};
    int rc = taal_run(bank_body, NULL, sizeof(bank), &options, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "bank: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
