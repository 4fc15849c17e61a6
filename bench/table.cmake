# table.cmake -- runs the benchmarks that issue 24 sets chapter 08 targets
# for, chapter 07 and chapter 08 side by side, and writes their table into
# docs/benchmarks.md, between the lines
#
#   <!-- bench-table: begin (...) -->
#   <!-- bench-table: end -->
#
# replacing what was there. The `bench_table` target runs it (see
# bench/CMakeLists.txt; `cmake --workflow --preset bench-table`):
#
#   cmake -DRUNNER=bench_runner -DARGS="--program|ch07:...|..." -DOUT=table.md
#         -DDOC=docs/benchmarks.md -DSOURCE=<source dir> -P bench/table.cmake
#
# ARGS is the runner's arguments with '|' between them (a CMake list would
# not survive the trip through add_custom_target's command line). The
# commit measured, and whether the tree had changes, go into the table's
# first line.
foreach(var IN ITEMS RUNNER ARGS OUT DOC SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "table.cmake: -D${var}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" args "${ARGS}")

set(note "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE} rev-parse --short HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE git_rc ERROR_QUIET)
  if(git_rc EQUAL 0)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE} status --porcelain
                            --untracked-files=no -- chapters bench
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    set(note "commit ${commit}")
    if(NOT changes STREQUAL "")
      string(APPEND note " with uncommitted changes to chapters/ or bench/")
    endif()
  endif()
endif()
if(note STREQUAL "")
  set(note "commit unknown")
endif()

unset(ENV{TAAL_CLOCK})
execute_process(COMMAND ${RUNNER} ${args} --targets --markdown ${OUT} --note "${note}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "table.cmake: the runner failed (${rc}); ${DOC} is unchanged")
endif()

file(READ ${OUT} table)
file(READ ${DOC} doc)
set(begin_re "<!-- bench-table: begin[^\n]*-->\n")
set(end_mark "<!-- bench-table: end -->")
string(REGEX MATCH "${begin_re}" begin "${doc}")
string(FIND "${doc}" "${begin}" at_begin)
string(FIND "${doc}" "${end_mark}" at_end)
if(begin STREQUAL "" OR at_end LESS at_begin)
  message(FATAL_ERROR "table.cmake: ${DOC} has no '<!-- bench-table: begin -->' ... "
                      "'${end_mark}' lines to put the table between; it is in ${OUT}")
endif()
string(LENGTH "${begin}" begin_len)
math(EXPR after_begin "${at_begin} + ${begin_len}")
string(SUBSTRING "${doc}" 0 ${after_begin} head)
string(SUBSTRING "${doc}" ${at_end} -1 tail)
file(WRITE ${DOC} "${head}\n${table}\n${tail}")
message(STATUS "The table of chapter 07 against chapter 08 is in ${DOC} "
               "(section \"Chapter 08 against chapter 07\"); review it with git diff")
