# Exercise 4's answer: taal_condition, on top of taal_lock. Its declarations
# are in condition.h, added at the end of include/taal.h (it has its own
# include guard); its code is in condition.c, added at the end of
# src/sync.c, where it may use the file's own helpers.
lab_edit(chapters/03_semaphore/include/taal.h APPEND condition.h)
lab_edit(chapters/03_semaphore/src/sync.c APPEND condition.c)
