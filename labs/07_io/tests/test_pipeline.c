/*
** test_pipeline.c -- lab 07, exercise 4: requests pipelined on one
** connection each read their own response, also when a request before
** them was given up after it was sent.
*/
#include "http_support.h"

TEST(pipelined_requests_each_get_their_own_response)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/2", "http://t.example/other",
                          "http://t.example/ok"};
    result r[3];
    CHECK_EQ(fetch_all(urls, 3, NULL, r, &leaks), TAAL_OK);
    CHECK_STR(r[0].body, "hello");
    CHECK_STR(r[1].body, "world");
    CHECK_STR(r[2].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_request_given_up_in_line_leaves_its_response_to_be_dropped)
{
    /* /other is cancelled at 1 s, waiting behind /slow/5; its response,
     * "world", comes all the same, and /ok must not take it for its own */
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/5", "http://t.example/other",
                          "http://t.example/ok"};
    double cancel_at[] = {0, 1, 0};
    result r[3];
    CHECK_EQ(fetch_all(urls, 3, cancel_at, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_ECANCELLED);
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "hello");
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(two_given_up_in_a_row_are_both_dropped)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/5", "http://t.example/other",
                          "http://t.example/chunked", "http://t.example/ok"};
    double cancel_at[] = {0, 1, 2, 0};
    result r[4];
    CHECK_EQ(fetch_all(urls, 4, cancel_at, r, &leaks), TAAL_OK);
    CHECK_EQ(r[3].st, TAAL_OK);
    CHECK_STR(r[3].body, "hello");
    CHECK_EQ(r[3].code, 200);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(pipelined_requests_each_get_their_own_response),
    TEST_ENTRY(a_request_given_up_in_line_leaves_its_response_to_be_dropped),
    TEST_ENTRY(two_given_up_in_a_row_are_both_dropped),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
