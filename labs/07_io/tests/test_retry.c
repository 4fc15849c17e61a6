/*
** test_retry.c -- lab 07, exercise 6: a GET whose kept-alive connection
** turns out to have been closed by the server, before any byte of the
** response, is sent again once on a new connection. A response cut after
** its first byte is still the end of the stream: it may have had effects.
*/
#include "http_support.h"

typedef struct two {
    taal_coro co;
    int port;
    const char *first, *second;
    taal_http_session session;
    taal_http_get get;
    int st[2];
    char body[2][16];
    int i;
} two;

static int two_body(taal_coro *self)
{
    two *f = (two *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    for (f->i = 0; f->i < 2; f->i++) {
        taal_http_get_init(&f->get, &f->session, f->i == 0 ? f->first : f->second);
        TAAL_AWAIT_STATUS(f->st[f->i], &f->get);
        snprintf(f->body[f->i], sizeof f->body[f->i], "%s",
                 f->get.body ? f->get.body : "");
        taal_http_get_free(&f->get);
        if (f->i == 0)
            TAAL_SLEEP(1); /* idle: the server's hang-up arrives meanwhile */
    }
    taal_http_session_close(&f->session);
    TAAL_END();
}

static void run(const char *first, const char *second, two *out, size_t *accepted)
{
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    taal_task *task = NULL;
    taal_task_create(&loop, two_body,
                     &(two){.port = server->port, .first = first, .second = second},
                     sizeof(two), NULL, &task);
    taal_run_until_complete(&loop, taal_task_future(task));
    *out = *(two *)taal_task_frame(task);
    *accepted = server->accepted;
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
}

TEST(a_request_on_a_connection_the_server_closed_is_sent_again)
{
    int fds = open_fds();
    two t;
    size_t accepted;
    run("http://t.example/ok-close", "http://t.example/other", &t, &accepted);
    CHECK_EQ(t.st[0], TAAL_OK);
    CHECK_EQ(t.st[1], TAAL_OK);
    CHECK_STR(t.body[1], "world");
    CHECK_EQ(accepted, 2);
    CHECK_EQ(open_fds(), fds);
}

TEST(a_response_cut_after_its_first_byte_is_not_sent_again)
{
    int fds = open_fds();
    two t;
    size_t accepted;
    run("http://t.example/ok", "http://t.example/cut/20", &t, &accepted);
    CHECK_EQ(t.st[0], TAAL_OK);
    CHECK_EQ(t.st[1], TAAL_EEOF);
    CHECK_EQ(accepted, 1);
    CHECK_EQ(open_fds(), fds);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_request_on_a_connection_the_server_closed_is_sent_again),
    TEST_ENTRY(a_response_cut_after_its_first_byte_is_not_sent_again),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
