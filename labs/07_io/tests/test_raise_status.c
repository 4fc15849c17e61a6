/*
** test_raise_status.c -- lab 07, exercise 5: with raise_for_status set, a
** response of status 400 or more ends its request with TAAL_EHTTPSTATUS
** (aiohttp's ClientResponseError), its status and body still readable, and
** the connection goes on. Off (the default), a 404 is a response.
*/
#include "http_support.h"

static const taal_http_route routes[] = {{.path = "/", .status = 200, .body = "fine\n"}};

typedef struct three {
    taal_coro co;
    int port;
    bool raise;
    taal_http_session session;
    taal_http_get get;
    int st[3], code[3];
    size_t len[3];
    int i;
} three;

static const char *const paths[] = {"http://r.example/", "http://r.example/missing",
                                    "http://r.example/"};

static int three_body(taal_coro *self)
{
    three *f = (three *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    f->session.raise_for_status = f->raise;
    taal_http_session_map(&f->session, "r.example", "127.0.0.1", f->port);
    for (f->i = 0; f->i < 3; f->i++) {
        taal_http_get_init(&f->get, &f->session, paths[f->i]);
        TAAL_AWAIT_STATUS(f->st[f->i], &f->get);
        f->code[f->i] = f->get.status_code;
        f->len[f->i] = f->get.body_len;
        taal_http_get_free(&f->get);
    }
    taal_http_session_close(&f->session);
    TAAL_END();
}

static void run(bool raise, three *out, size_t *accepted)
{
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {.routes = routes, .count = 1};
    taal_server *server = NULL;
    taal_http_serve(&loop, "127.0.0.1", 0, &site, &server);
    taal_task *task = NULL;
    taal_task_create(&loop, three_body, &(three){.port = server->port, .raise = raise},
                     sizeof(three), NULL, &task);
    taal_run_until_complete(&loop, taal_task_future(task));
    *out = *(three *)taal_task_frame(task);
    *accepted = server->accepted;
    taal_task_release(task);
    taal_server_release(server);
    taal_loop_close(&loop);
}

TEST(with_raise_for_status_a_404_is_an_error_and_its_body_is_kept)
{
    three t;
    size_t accepted;
    run(true, &t, &accepted);
    CHECK_EQ(t.st[0], TAAL_OK);
    CHECK_EQ(t.st[1], TAAL_EHTTPSTATUS);
    CHECK_EQ(t.code[1], 404);
    CHECK_EQ(t.len[1], strlen("not found\n"));
    CHECK_EQ(t.st[2], TAAL_OK); /* the connection went on */
    CHECK_EQ(accepted, 1);
    CHECK_STR(taal_strerror(TAAL_EHTTPSTATUS), "HTTP error status");
}

TEST(without_it_a_404_is_a_response)
{
    three t;
    size_t accepted;
    run(false, &t, &accepted);
    CHECK_EQ(t.st[1], TAAL_OK);
    CHECK_EQ(t.code[1], 404);
}

static const taal_test tests[] = {
    TEST_ENTRY(with_raise_for_status_a_404_is_an_error_and_its_body_is_kept),
    TEST_ENTRY(without_it_a_404_is_a_response),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
