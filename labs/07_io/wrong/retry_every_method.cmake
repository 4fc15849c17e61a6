# A retry that forgets the method: a POST whose connection ended before its
# response is sent again, though the server may have processed it (the
# connection can end after the server acted and before it answered).
lab_edit(chapters/07_io/src/http_client.c REPLACE [[
    for (size_t i = 0; i < sizeof idempotent / sizeof idempotent[0]; i++)
        if (strcmp(g->method, idempotent[i]) == 0)
            return true;
    return false;
]] WITH [[
    (void)idempotent;
    return true;
]])
set(CAUGHT_BY "exercise 6")
