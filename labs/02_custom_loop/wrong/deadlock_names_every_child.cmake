# A wrong answer to exercise 4: the report names every child, done or not.
set(CAUGHT_BY "exercise 4")
lab_edit(chapters/02_custom_loop/src/future.c REPLACE [[
            if (taal_future_done(child))
                continue;
]] WITH "")
