# Exercise 6's answer: TAAL_ACQUIRE_LIMITED and the code TAAL_ETOOMANY. The
# code is one line in the header's list and one in taal_strerror(); the
# macros are in limit.h, added at the end of the header with their own
# include guard; the function is in limit.c, added at the end of
# src/sync.c, where it uses the file's own helpers.
lab_edit(chapters/03_semaphore/include/taal.h REPLACE [[
                               an unlocked lock, task_done() too often */
]] WITH [[
                               an unlocked lock, task_done() too often */
    TAAL_ETOOMANY = -16,  /**< too many tasks wait already (TAAL_ACQUIRE_LIMITED) */
]])
lab_edit(chapters/03_semaphore/src/taal.c REPLACE [[
    case TAAL_ERELEASE: return "released more than acquired";
]] WITH [[
    case TAAL_ERELEASE: return "released more than acquired";
    case TAAL_ETOOMANY: return "too many waiting";
]])
lab_edit(chapters/03_semaphore/include/taal.h APPEND limit.h)
lab_edit(chapters/03_semaphore/src/sync.c APPEND limit.c)
