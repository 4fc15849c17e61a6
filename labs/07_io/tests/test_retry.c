/*
** test_retry.c -- lab 07, exercise 6: a request whose connection ended
** before any byte of its response came (a kept-alive connection the server
** had closed, a server that closes after each response) is sent again on a
** new connection if its method is idempotent, a bounded number of times. A
** response cut after its first byte, and a POST, are not sent again: the
** server may have acted on them.
*/
#include "http_support.h"

TEST(a_request_on_a_connection_the_server_closed_is_sent_again)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/ok-close", "http://t.example/other"};
    double later[] = {0, 1}; /* idle: the server's hang-up arrives meanwhile */
    result r[2];
    CHECK_EQ(fetch_all_at(urls, 2, NULL, later, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_OK);
    CHECK_STR(r[1].body, "world");
    CHECK_EQ(raw_last.accepted, 2);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(idempotent_methods_are_sent_again_and_others_are_not)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {
        "http://t.example/ok-close",        "PUT http://t.example/other",
        "DELETE http://t.example/ok-close", "HEAD http://t.example/echo",
        "http://t.example/ok-close",        "POST http://t.example/ok"};
    double later[] = {0, 1, 2, 3, 4, 5};
    result r[6];
    CHECK_EQ(fetch_all_at(urls, 6, NULL, later, r, &leaks), TAAL_OK);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(r[i].st, TAAL_OK);
    CHECK_STR(r[1].body, "world");
    CHECK_EQ(r[5].st, TAAL_EEOF); /* stale, but a POST */
    CHECK_EQ(raw_last.accepted, 3);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(retries_are_bounded_and_never_after_a_byte_of_the_response)
{
    int fds = open_fds(), leaks;
    const char *hangup[] = {"http://t.example/hangup"};
    const char *cut[] = {"http://t.example/ok", "http://t.example/cut/20"};
    result r[2];
    CHECK_EQ(fetch_all(hangup, 1, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[0].st, TAAL_EEOF);
    CHECK_EQ(raw_last.accepted, 1 + TAAL_HTTP_MAX_RETRIES);
    CHECK_EQ(fetch_all(cut, 2, NULL, r, &leaks), TAAL_OK);
    CHECK_EQ(r[1].st, TAAL_EEOF);
    CHECK_EQ(raw_last.accepted, 1);
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

TEST(five_gets_to_a_server_that_closes_after_each_response_all_succeed)
{
    int fds = open_fds(), leaks;
    const char *urls[] = {"http://t.example/ok-close", "http://t.example/ok-close",
                          "http://t.example/ok-close", "http://t.example/ok-close",
                          "http://t.example/ok-close"};
    result r[5];
    CHECK_EQ(fetch_piped(urls, 5, NULL, NULL, 5, r, &leaks), TAAL_OK);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(r[i].st, TAAL_OK);
        CHECK_STR(r[i].body, "hello");
    }
    CHECK_EQ(leaks, 0);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_request_on_a_connection_the_server_closed_is_sent_again),
    TEST_ENTRY(idempotent_methods_are_sent_again_and_others_are_not),
    TEST_ENTRY(retries_are_bounded_and_never_after_a_byte_of_the_response),
    TEST_ENTRY(five_gets_to_a_server_that_closes_after_each_response_all_succeed),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
