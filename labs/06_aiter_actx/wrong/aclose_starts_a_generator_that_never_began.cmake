# An aclose that resumes any generator that has not finished, one that
# never started included: its body runs from its first line to its first
# yield, which, closing, is TAAL_EIGNORED.
lab_edit(chapters/06_aiter_actx/src/aiter.c REPLACE [[
    if (it->co.point == 0) {
        it->co.point = TAAL_POINT_DONE;
        it->co.status = TAAL_OK;
        return false;
    }
    it->closing = true;
]] WITH [[
    it->closing = true;
]])
set(CAUGHT_BY "exercise 2")
set(MESSAGE "a_generator_never_started_is_closed_without_running_anything")
