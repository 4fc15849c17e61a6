# Exercise 4's answer: taal_azip, an async generator over two iterators
# that closes both in its cleanup (azip.c, at the end of src/aiter.c; its
# declaration is azip.h, at the end of the header).
lab_edit(chapters/06_aiter_actx/include/taal.h APPEND azip.h)
lab_edit(chapters/06_aiter_actx/src/aiter.c APPEND azip.c)
