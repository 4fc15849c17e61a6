# check.cmake -- make one variant of a chapter's handout, grade it, and
# check the grade: the lab's tests must fail the holes and wrong answers and
# pass the answers. This is what the "lab" tests of the book's own suite
# run (labs/CMakeLists.txt).
#
#   cmake -DCHAPTER=02_custom_loop -DVARIANT=stub -DDIR=<folder> -P check.cmake
#
# VARIANT is stub (every exercise must score 0, and the unit tests must
# lose points), reference (full marks), or a wrong answer in
# labs/<CHAPTER>/wrong/, whose CAUGHT_BY part must lose points, with its
# MESSAGE (a regular expression), if it gives one, in the grade.
#
# The stub is graded as a student would grade it: the handout is made, and
# its own grade.cmake run in it. The answers are graded in full, with the
# sanitizer pass (grade.cmake's default, the grade a student runs). A wrong
# answer only has to lose points in its CAUGHT_BY exercise, and to leave
# every part in the grade: that exercise alone is graded (grade.cmake's
# ONLY), in the ordinary build (SANITIZE=OFF), unless the wrong answer sets
# SANITIZE (a memory mistake an ordinary build lets pass): then with the
# sanitizer pass, which must catch it. TIME_LIMIT, CMAKE_ARGS and SANITIZE
# are passed on to grade.cmake (a SANITIZE given here wins).
cmake_minimum_required(VERSION 3.25)
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

set(wrong_answer FALSE)
set(only "")
if(NOT VARIANT STREQUAL "reference" AND NOT VARIANT STREQUAL "stub")
  set(wrong_answer TRUE)
  function(lab_edit) # the wrong answer's edits are the handout's business
  endfunction()
  set(given_sanitize "${SANITIZE}")
  set(SANITIZE OFF)
  include(${root}/labs/${CHAPTER}/wrong/${VARIANT}.cmake)
  if(NOT given_sanitize STREQUAL "")
    set(SANITIZE "${given_sanitize}")
  endif()
  if(CAUGHT_BY MATCHES "^exercise [0-9]+$")
    set(only "${CAUGHT_BY}")
  endif()
endif()

set(options)
foreach(option TIME_LIMIT CMAKE_ARGS SANITIZE)
  if(DEFINED ${option})
    list(APPEND options "-D${option}=${${option}}")
  endif()
endforeach()
if(VARIANT STREQUAL "stub")
  execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${DIR} -DVARIANT=stub
                          -P ${root}/cmake/handout.cmake
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "could not make the handout of ${CHAPTER}:\n${out}")
  endif()
  set(command ${CMAKE_COMMAND} ${options} -P ${DIR}/grade.cmake)
else()
  set(command ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DVARIANT=${VARIANT} -DDIR=${DIR}
              ${options} "-DONLY=${only}" -P ${root}/cmake/grade.cmake)
endif()
execute_process(COMMAND ${command}
                OUTPUT_VARIABLE grade ERROR_VARIABLE grade RESULT_VARIABLE status)
message("${grade}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the grade did not finish")
endif()

# The parts: "<name> ....... <passed>/<count>".
string(REGEX MATCHALL "\n[^ \n][^\n]* \\.+ [0-9]+/[0-9]+" lines "${grade}")
if(NOT lines)
  message(FATAL_ERROR "the grade printed no scores")
endif()
set(failures)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^\n(.*[^ ]) \\.+ ([0-9]+)/([0-9]+)$" "\\1|\\2|\\3" part "${line}")
  string(REPLACE "|" ";" part "${part}")
  list(GET part 0 name)
  list(GET part 1 passed)
  list(GET part 2 count)
  if(count EQUAL 0)
    list(APPEND failures "'${name}' has no tests")
  elseif(VARIANT STREQUAL "reference")
    if(NOT passed EQUAL count)
      list(APPEND failures "'${name}' is not full marks on the answers")
    endif()
  elseif(VARIANT STREQUAL "stub")
    if(name MATCHES "^exercise" AND NOT passed EQUAL 0)
      list(APPEND failures "'${name}': ${passed} of its tests pass on the stub")
    elseif(name STREQUAL "unit tests" AND passed EQUAL count)
      list(APPEND failures "the unit tests all pass on the stub")
    endif()
  endif()
  set(score_${name} ${passed}/${count})
  set(full_${name} FALSE)
  if(passed EQUAL count)
    set(full_${name} TRUE)
  endif()
endforeach()

# Every part must be there: a grade that stopped at the build has none.
include(${root}/labs/${CHAPTER}/lab.cmake)
set(parts "unit tests" "documented output")
list(LENGTH LAB_EXERCISES n)
foreach(i RANGE 1 ${n})
  list(APPEND parts "exercise ${i}")
endforeach()
foreach(part IN LISTS parts)
  if(NOT grade MATCHES "\n${part}[ .(]")
    list(APPEND failures "the grade has no part '${part}'")
  endif()
endforeach()

if(wrong_answer)
  set(caught FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^\n${CAUGHT_BY} ")
      set(caught TRUE)
      string(REGEX REPLACE "^\n(.*[^ ]) \\.+ .*" "\\1" name "${line}")
      if(full_${name})
        list(APPEND failures "the wrong answer ${VARIANT} gets full marks for ${name}")
      endif()
    endif()
  endforeach()
  if(NOT caught)
    list(APPEND failures "the grade has no part '${CAUGHT_BY}' (CAUGHT_BY of ${VARIANT})")
  endif()
  if(DEFINED MESSAGE AND NOT grade MATCHES "${MESSAGE}")
    list(APPEND failures "the grade does not say /${MESSAGE}/")
  endif()
endif()

if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "${CHAPTER} (${VARIANT}):\n  ${failures}")
endif()
message("${CHAPTER} (${VARIANT}): graded as it had to be")
