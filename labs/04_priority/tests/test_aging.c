/*
** test_aging.c -- lab 04, exercise 3: aging, so that nothing waits forever.
**
**   pick_level(loop)   which priority runs this iteration
**
** With taal_loop_options.aging = N (N > 0), every priority that has work
** and is passed over counts one more iteration waited; one that has waited
** N iterations runs next, whatever is above it (the one that waited
** longest, if several have), and starts counting from 0 again. With
** aging 0 the loop is strict (exercise 2), which no test here checks.
**
** Every test keeps a task of high priority busy, yielding at every step,
** and drives the loop one iteration at a time: each iteration's letters go
** into the trace, so that the trace shows exactly which priority ran when.
*/
#include "lab.h"

TEST(a_priority_passed_over_n_times_runs_in_the_next_iteration)
{
    taal_loop loop;
    open_loop_aging(&loop, 4);
    taal_task *t[2] = {spawn_spinner(&loop, "h", 100, 5),
                       spawn_spinner(&loop, "l", 3, -5)};
    iterations(&loop, 15);
    CHECK_STR(trace, "hhhhlhhhhlhhhhl"); /* passed over 4 times, then it runs */
    CHECK(finish(&loop, t, 2));
    taal_loop_close(&loop);
}

TEST(with_aging_1_two_priorities_take_turns)
{
    taal_loop loop;
    open_loop_aging(&loop, 1);
    taal_task *t[2] = {spawn_spinner(&loop, "h", 100, 9),
                       spawn_spinner(&loop, "l", 3, 2)};
    iterations(&loop, 6);
    CHECK_STR(trace, "hlhlhl");
    CHECK(finish(&loop, t, 2));
    taal_loop_close(&loop);
}

/* An aged priority runs what was ready at it when the iteration began:
 * both of its tasks, in their order. */
TEST(an_aged_priority_runs_its_whole_fifo)
{
    taal_loop loop;
    open_loop_aging(&loop, 3);
    taal_task *t[3] = {spawn_spinner(&loop, "h", 100, 5),
                       spawn_spinner(&loop, "a", 2, -5),
                       spawn_spinner(&loop, "b", 2, -5)};
    iterations(&loop, 8);
    CHECK_STR(trace, "hhhabhhhab");
    CHECK(finish(&loop, t, 3));
    taal_loop_close(&loop);
}

/* Six priorities below a busy one: each runs again within aging + 32
 * iterations of its last turn, and the busy one still gets most turns. */
TEST(under_a_saturating_load_every_priority_runs_within_the_bound)
{
    enum { AGING = 8, ROUNDS = 3000, LOW = 6 };
    static const char *const letters[LOW] = {"a", "b", "c", "d", "e", "f"};
    taal_loop loop;
    open_loop_aging(&loop, AGING);
    taal_task *t[LOW + 1];
    t[0] = spawn_spinner(&loop, "h", 100000, TAAL_PRIORITY_MAX);
    for (int i = 0; i < LOW; i++)
        t[i + 1] = spawn_spinner(&loop, letters[i], 100000, -10 + i);
    int last[LOW] = {0}, worst = 0, high = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        trace[0] = '\0';
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
        CHECK_EQ(strlen(trace), 1); /* one task per priority here */
        if (trace[0] == 'h')
            high++;
        for (int i = 0; i < LOW; i++) {
            if (trace[0] == letters[i][0]) {
                if (round - last[i] > worst)
                    worst = round - last[i];
                last[i] = round;
            }
        }
    }
    for (int i = 0; i < LOW; i++) {
        CHECK(last[i] > ROUNDS - (AGING + TAAL_PRIORITY_LEVELS));
        CHECK(worst <= AGING + TAAL_PRIORITY_LEVELS);
    }
    CHECK(high > ROUNDS / 3);
    /* Nothing leaks: the tasks are dropped at close, still pending. */
    for (int i = 0; i <= LOW; i++)
        taal_task_release(t[i]);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_priority_passed_over_n_times_runs_in_the_next_iteration),
    TEST_ENTRY(with_aging_1_two_priorities_take_turns),
    TEST_ENTRY(an_aged_priority_runs_its_whole_fifo),
    TEST_ENTRY(under_a_saturating_load_every_priority_runs_within_the_bound),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
