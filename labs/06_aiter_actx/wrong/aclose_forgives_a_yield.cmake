# An aclose that takes a yield of the cleanup for the end of the close: it
# says TAAL_OK, and leaves the generator suspended there, not finished.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
            it->yielded = false;
            co->point = TAAL_POINT_DONE;
            co->status = rc = TAAL_EIGNORED;
]] WITH [[
            it->yielded = false;
            rc = TAAL_OK;
]])
set(CAUGHT_BY "exercise 2")
set(MESSAGE "a_yield_during_the_close_is_eignored_and_ends_the_generator")
