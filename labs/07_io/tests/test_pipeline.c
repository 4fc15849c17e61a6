/*
** test_pipeline.c -- lab 07, exercise 4: requests pipelined on one
** connection each read their own response; a request given up after it
** was sent leaves a response nobody reads: the reader who reaches it ends
** the connection instead, and never takes it for its own.
**
** Those behind are sent again if they may be (exercise 6); until that is
** done they fail with TAAL_ECONNABORTED, which these tests accept.
*/
#include "http_support.h"

/* Either its own response, `body`, or aborted (not sent again). */
static bool own_or_aborted(const result *r, const char *body)
{
    return r->st == TAAL_ECONNABORTED || (r->st == TAAL_OK && strcmp(r->body, body) == 0);
}

TEST(pipelined_requests_each_get_their_own_response_and_never_one_given_up)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/2", "http://t.example/other",
                          "http://t.example/ok"};
    result r[3];
    CHECK_EQ(fetch_piped(urls, 3, NULL, NULL, 3, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_STR(r[0].body, "hello");
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "world");
    CHECK_EQ(r[2].st, TAAL_OK);
    CHECK_STR(r[2].body, "hello");
    CHECK_EQ(raw_last.accepted, 1);
    /* /echo, given up at 0.5 s in line behind /slow/1: /other, behind it,
     * never reads the echo */
    const char *urls2[] = {"http://t.example/slow/1", "http://t.example/echo",
                           "http://t.example/other"};
    double cancel_at[] = {0, 0.5, 0};
    CHECK_EQ(fetch_piped(urls2, 3, cancel_at, NULL, 3, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_ECANCELLED);
    CHECK(own_or_aborted(&r[2], "world"));
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_request_given_up_in_line_ends_the_connection_where_its_response_comes)
{
    /* /other is cancelled at 1 s, waiting behind /slow/5; its response,
     * "world", comes all the same, and /ok must not take it for its own */
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/5", "http://t.example/other",
                          "http://t.example/ok"};
    double cancel_at[] = {0, 1, 0};
    result r[3];
    CHECK_EQ(fetch_piped(urls, 3, cancel_at, NULL, 3, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_STR(r[0].body, "hello");
    CHECK_EQ(r[1].st, TAAL_ECANCELLED);
    CHECK(own_or_aborted(&r[2], "hello"));
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(two_given_up_in_a_row_are_neither_read_as_the_next_ones_response)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/slow/5", "http://t.example/other",
                          "http://t.example/echo", "http://t.example/ok"};
    double cancel_at[] = {0, 1, 2, 0};
    result r[4];
    CHECK_EQ(fetch_piped(urls, 4, cancel_at, NULL, 4, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK(own_or_aborted(&r[3], "hello"));
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(pipelined_requests_each_get_their_own_response_and_never_one_given_up),
    TEST_ENTRY(a_request_given_up_in_line_ends_the_connection_where_its_response_comes),
    TEST_ENTRY(two_given_up_in_a_row_are_neither_read_as_the_next_ones_response),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
