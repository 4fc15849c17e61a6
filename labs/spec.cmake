# spec.cmake -- every name of the runtime that a lab's exercise tests use
# (taal_..., taal__..., TAAL_...) is named somewhere a student reads: the
# handout's headers (the chapter's include/, the test helpers, the lab's
# own lab.h), its tutorial, its README (the exercises' tasks), or the
# comments of the lab's test files. A test that calls a
# function the exercise never names asks for a guess.
#
#   cmake -DCHAPTER=03_semaphore -DDIR=<scratch folder> -P spec.cmake
#
# (Fields of a structure are not checked: `waiting` is a word too.)
cmake_minimum_required(VERSION 3.25)
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${DIR} -DVARIANT=stub
                        -P ${root}/cmake/handout.cmake
                OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "could not make the handout:\n${err}")
endif()
include(${DIR}/lab.cmake)

# What a student reads.
set(read "")
file(GLOB headers ${DIR}/chapters/${CHAPTER}/include/*.h ${DIR}/tests/include/*.h
     ${DIR}/labs/${CHAPTER}/tests/*.h)
foreach(file IN LISTS headers ITEMS ${DIR}/docs/${CHAPTER}.md ${DIR}/README.md)
  file(READ ${file} text)
  string(APPEND read "${text}\n")
endforeach()
file(GLOB_RECURSE tests ${DIR}/labs/${CHAPTER}/tests/*.[ch])
foreach(file IN LISTS tests)
  file(READ ${file} text)
  string(REGEX MATCHALL "/\\*([^*]|\\*+[^*/])*\\*+/" comments "${text}")
  string(APPEND read "${comments}\n")
endforeach()

set(missing "")
set(n 0)
foreach(exercise IN LISTS LAB_EXERCISES)
  math(EXPR n "${n} + 1")
  set(used)
  foreach(file IN LISTS LAB_${exercise}_TESTS)
    file(READ ${DIR}/labs/${CHAPTER}/${file} text)
    # the code only: comments out, strings out
    string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
    string(REGEX REPLACE "\"([^\"\\\\\n]|\\\\.)*\"" "\"\"" text "${text}")
    string(REGEX MATCHALL "(taal_|taal__|TAAL_)[A-Za-z0-9_]+" names "${text}")
    list(APPEND used ${names})
  endforeach()
  list(REMOVE_DUPLICATES used)
  foreach(name IN LISTS used)
    # named as a whole word
    if(NOT read MATCHES "(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)")
      string(APPEND missing "\n  exercise ${n} (${exercise}): ${name}")
    endif()
  endforeach()
endforeach()
file(REMOVE_RECURSE ${DIR})
if(NOT missing STREQUAL "")
  message(FATAL_ERROR "names the tests of ${CHAPTER}'s lab use that no student reads "
                      "(name them in the exercise's text or its test file's comment):"
                      "${missing}")
endif()
message("${CHAPTER}: every name the lab's tests use is in the student's text")
