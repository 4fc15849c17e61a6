# expect_failure.cmake -- run a command that must fail, for the right reason.
#
#   cmake -DCOMMAND=<list> -DREASON=<regex> -P expect_failure.cmake
#
# Passes only if COMMAND exits non-zero and its output matches REASON. This
# is how the harness proves that a wrong expectation is caught: a check that
# cannot fail is no check.
#
# With -DMUTATE=<file.md> -DFROM=<text> -DTO=<text> -DCOPY=<path>, it first
# writes a copy of the file with FROM replaced by TO (which must be there)
# and appends the copy to COMMAND: "change one character of a tutorial's
# documented output and the suite must fail".
if(NOT DEFINED COMMAND OR NOT DEFINED REASON)
  message(FATAL_ERROR "usage: cmake -DCOMMAND=<list> -DREASON=<regex> -P expect_failure.cmake")
endif()
if(DEFINED MUTATE)
  file(READ "${MUTATE}" doc)
  string(FIND "${doc}" "${FROM}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${MUTATE} does not contain the text to change")
  endif()
  string(REPLACE "${FROM}" "${TO}" doc "${doc}")
  file(WRITE "${COPY}" "${doc}")
  list(APPEND COMMAND "${COPY}")
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
message("${out}")
if(status EQUAL 0)
  message(FATAL_ERROR "the command succeeded; it had to fail")
endif()
# CMake wraps a script's error messages to fit its terminal width, so where
# a line breaks depends on how long the paths in it are (a clone in a deeper
# folder breaks it elsewhere). The reason is also looked for with every run
# of blanks, in both, made one space.
string(REGEX REPLACE "[ \t\r\n]+" " " flat_out "${out}")
string(REGEX REPLACE "[ \t\r\n]+" " " flat_reason "${REASON}")
if(NOT out MATCHES "${REASON}" AND NOT flat_out MATCHES "${flat_reason}")
  message(FATAL_ERROR "the command failed, but not with /${REASON}/")
endif()
message("failed as it had to: /${REASON}/")
