# Exercise 5's answer: taal_timed, a coroutine manager whose enter notes
# the loop time and whose exit records the body's time and status
# (timed.c, at the end of src/actx.c; timed.h, at the end of the header).
lab_edit(chapters/06_aiter_actx/include/taal.h APPEND timed.h)
lab_edit(chapters/06_aiter_actx/src/actx.c APPEND timed.c)
