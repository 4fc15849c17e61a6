# chapter_diff.cmake -- the diff from one chapter to the next, for its tutorial.
#
#   cmake -DROOT=<repo> -DOLD=chapters/01_x -DNEW=chapters/02_y -DOUT=<file> -P chapter_diff.cmake
#   cmake ... -DCHECK=ON -P chapter_diff.cmake    (fail if OUT is not current)
#
# The diff is committed under docs/diffs/ so that it can be read on a code
# host; the test suite regenerates it and fails if the committed copy is
# stale. `cmake --build build --target diffs` refreshes every one.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C diff -ruN ${OLD} ${NEW}
                WORKING_DIRECTORY ${ROOT} OUTPUT_VARIABLE diff RESULT_VARIABLE status)
if(status GREATER 1)
  message(FATAL_ERROR "diff failed (status ${status}); is the diff tool installed?")
endif()
# File times differ from clone to clone: keep only the names.
string(REGEX REPLACE "\n(---|\\+\\+\\+) ([^\t\n]+)\t[^\n]*" "\n\\1 \\2" diff "${diff}")
if(CHECK)
  file(READ ${OUT} committed)
  if(NOT committed STREQUAL diff)
    message(FATAL_ERROR "${OUT} is out of date: run `cmake --build build --target diffs` "
                        "and commit the result")
  endif()
  message("${OUT} is current")
else()
  file(WRITE ${OUT} "${diff}")
endif()
