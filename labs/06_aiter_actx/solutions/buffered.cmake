# Exercise 6's answer: taal_buffered, an async generator stage whose
# upstream runs in a producer task of its own, at most `size` values ahead
# through a bounded queue (buffered.c, at the end of src/aiter.c;
# buffered.h, at the end of the header).
lab_edit(chapters/06_aiter_actx/include/taal.h APPEND buffered.h)
lab_edit(chapters/06_aiter_actx/src/aiter.c APPEND buffered.c)
