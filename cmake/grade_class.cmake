# grade_class.cmake -- grade a whole class's handouts of one lab, in
# parallel, each in a clean tree, and write the grades as a CSV table, as
# text and as one JSON file per student.
#
#   cmake -DSUBMISSIONS=<folder> -DCHAPTER=03_semaphore -P cmake/grade_class.cmake
#
# in the book's repository. <folder> holds one folder per student (its name
# is the student's), each a handout of the lab as the student hands it in.
#
# Each student is graded in a clean tree: a fresh handout of the chapter
# made from this repository (its tests, harness, CMake files and grade are
# the instructor's), with only the student's own work copied in: the
# chapter's src/, include/ and examples/ (where the holes and exercises
# are), its tutorial (an exercise may change a program's documented
# output), and any of the lab's test files that has a hole of its own. A
# student who edits a test, the harness, the grade or a CMakeLists.txt
# changes nothing. The trees are built in parallel, JOBS at a time, each with a
# time budget: a grade that has not finished by then is stopped and
# reported as such.
#
# Options:
#   -DOUT=<folder>      where the trees and the results go (default:
#                       build-lab/class-<CHAPTER> in the repository)
#   -DJOBS=<n>          students graded at once (default: the cores)
#   -DBUDGET=<s>        the time budget of one student's grade (default 900)
#   -DTIME_LIMIT=<s>    passed on to grade.cmake: each test's limit
#   -DSANITIZE=OFF|ALL  passed on to grade.cmake: no sanitizer pass, or
#                       everything built and run under ASan+UBSan
#   -DCMAKE_ARGS=<a|b>  passed on to grade.cmake
#
# Writes, in OUT: grades.csv (one row per student: each part's passed
# tests, the total, the weighted score, and the first failure), grades.txt
# (every student's whole grade, one after the other), and json/<student>.json
# (Gradescope's results format: a score and one entry per part, with its
# score, maximum and first failure). Exits 0 once every student is graded,
# whatever the grades.
cmake_minimum_required(VERSION 3.25)
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

# ---- one student ------------------------------------------------------------
# Run as `cmake -DSTUDENT_DIR=... -DTREE=... -P grade_class.cmake`: make the
# clean tree, copy the student's work in, grade it into TREE/grade.txt.
if(DEFINED STUDENT_DIR)
  execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${TREE} -DVARIANT=stub
                          -P ${root}/cmake/handout.cmake
                  OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    file(WRITE ${TREE}/grade.txt "could not make the clean tree:\n${err}\n")
    return()
  endif()
  foreach(part src include examples)
    set(from ${STUDENT_DIR}/chapters/${CHAPTER}/${part})
    if(IS_DIRECTORY ${from})
      file(REMOVE_RECURSE ${TREE}/chapters/${CHAPTER}/${part})
      file(COPY ${from}/ DESTINATION ${TREE}/chapters/${CHAPTER}/${part}
           PATTERN "*~" EXCLUDE)
    endif()
  endforeach()
  # The tutorial, whose documented output an exercise may change with its
  # program (lab 01's exercise 3).
  if(EXISTS ${STUDENT_DIR}/docs/${CHAPTER}.md)
    file(COPY_FILE ${STUDENT_DIR}/docs/${CHAPTER}.md ${TREE}/docs/${CHAPTER}.md)
  endif()
  # A lab's test file may have a hole of its own (lab 01's by_hand.c): the
  # student's version of such a file is their work too.
  file(GLOB_RECURSE lab_files RELATIVE ${TREE} ${TREE}/labs/${CHAPTER}/tests/*)
  foreach(file IN LISTS lab_files)
    file(STRINGS ${TREE}/${file} markers REGEX "/\\* LAB\\([A-Za-z0-9_]+\\) BEGIN")
    if(markers AND EXISTS ${STUDENT_DIR}/${file})
      file(COPY_FILE ${STUDENT_DIR}/${file} ${TREE}/${file})
    endif()
  endforeach()
  set(args -DDIR=${TREE})
  foreach(option TIME_LIMIT SANITIZE CMAKE_ARGS)
    if(DEFINED ${option})
      list(APPEND args "-D${option}=${${option}}")
    endif()
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} ${args} -P ${TREE}/grade.cmake
                  OUTPUT_FILE ${TREE}/grade.txt ERROR_FILE ${TREE}/grade.log)
  return()
endif()

if(NOT DEFINED SUBMISSIONS OR NOT DEFINED CHAPTER)
  message(FATAL_ERROR "usage: cmake -DSUBMISSIONS=<folder of student folders> "
                      "-DCHAPTER=<NN_name> [-DOUT=<folder>] [-DJOBS=n] [-DBUDGET=s] "
                      "-P cmake/grade_class.cmake")
endif()
get_filename_component(SUBMISSIONS ${SUBMISSIONS} ABSOLUTE)
if(NOT DEFINED OUT)
  set(OUT ${root}/build-lab/class-${CHAPTER})
endif()
get_filename_component(OUT ${OUT} ABSOLUTE)
if(NOT DEFINED JOBS)
  cmake_host_system_information(RESULT JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()
if(NOT DEFINED BUDGET)
  set(BUDGET 900)
endif()
if(NOT EXISTS ${root}/labs/${CHAPTER}/lab.cmake)
  message(FATAL_ERROR "chapter ${CHAPTER} has no lab")
endif()
include(${root}/labs/${CHAPTER}/lab.cmake)

# ---- the class --------------------------------------------------------------

file(GLOB entries RELATIVE ${SUBMISSIONS} ${SUBMISSIONS}/*)
set(students)
foreach(entry IN LISTS entries)
  if(IS_DIRECTORY ${SUBMISSIONS}/${entry} AND entry MATCHES "^[A-Za-z0-9_.-]+$")
    list(APPEND students ${entry})
  elseif(IS_DIRECTORY ${SUBMISSIONS}/${entry})
    message(WARNING "skipped '${entry}': a student's folder is named with letters, "
                    "digits, '_', '.' and '-' only")
  endif()
endforeach()
list(SORT students)
list(LENGTH students count)
if(count EQUAL 0)
  message(FATAL_ERROR "no student folders in ${SUBMISSIONS}")
endif()

# The pool of jobs is CTest's: one test per student, run JOBS at a time,
# each stopped at its budget.
file(REMOVE_RECURSE ${OUT}/trees ${OUT}/json ${OUT}/ctest)
file(MAKE_DIRECTORY ${OUT}/trees ${OUT}/json ${OUT}/ctest)
set(passed_on "")
foreach(option TIME_LIMIT SANITIZE CMAKE_ARGS)
  if(DEFINED ${option})
    string(APPEND passed_on " [==[-D${option}=${${option}}]==]")
  endif()
endforeach()
set(tests "")
foreach(student IN LISTS students)
  string(APPEND tests
         "add_test(${student} [==[${CMAKE_COMMAND}]==] [==[-DCHAPTER=${CHAPTER}]==] "
         "[==[-DSTUDENT_DIR=${SUBMISSIONS}/${student}]==] "
         "[==[-DTREE=${OUT}/trees/${student}]==]${passed_on} -P "
         "[==[${CMAKE_CURRENT_LIST_FILE}]==])\n"
         "set_tests_properties(${student} PROPERTIES TIMEOUT ${BUDGET})\n")
endforeach()
file(WRITE ${OUT}/ctest/CTestTestfile.cmake "${tests}")

message(STATUS "grade_class: ${count} students of ${CHAPTER}, ${JOBS} at a time, "
               "${BUDGET} s each at most, in ${OUT}")
string(TIMESTAMP began "%s")
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${OUT}/ctest -j ${JOBS}
                OUTPUT_VARIABLE console ERROR_VARIABLE console)
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${began}")

# ---- the results ------------------------------------------------------------

function(json_escape text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
function(csv_escape text out)
  string(REPLACE "\"" "\"\"" text "${text}")
  string(REPLACE "\n" " " text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

list(LENGTH LAB_EXERCISES n_exercises)
set(header "student,status")
foreach(i RANGE 1 ${n_exercises})
  string(APPEND header ",exercise ${i}")
endforeach()
string(APPEND header ",unit tests,documented output,earlier chapters,total,score,first failure\n")
set(csv "${header}")
set(text "")
foreach(student IN LISTS students)
  set(grade "")
  set(status graded)
  if(console MATCHES "Test +#[0-9]+: ${student} [^\n]*\\*\\*\\*Timeout")
    set(status "over its budget of ${BUDGET} s")
  elseif(EXISTS ${OUT}/trees/${student}/grade.txt)
    file(READ ${OUT}/trees/${student}/grade.txt grade)
    if(grade MATCHES "^could not make")
      set(status "not graded")
    elseif(grade MATCHES "\nbuild \\.+ 0/1")
      set(status "does not build")
    elseif(NOT grade MATCHES "\nscore: ")
      set(status "not graded")
    endif()
  else()
    set(status "not graded")
  endif()
  string(APPEND text "==== ${student}: ${status}\n${grade}\n")

  # Each part's "<passed>/<count>", and the first failure of all.
  set(row "${student},${status}")
  set(tests_json "")
  foreach(part IN ITEMS exercises "unit tests" "documented output" "earlier chapters" total)
    if(part STREQUAL "exercises")
      set(names)
      foreach(i RANGE 1 ${n_exercises})
        list(APPEND names "exercise ${i}")
      endforeach()
    else()
      set(names "${part}")
    endif()
    foreach(name IN LISTS names)
      set(score "")
      set(failure "")
      if(grade MATCHES "\n(${name}( \\([^\n]*\\))?) \\.+ ([0-9]+)/([0-9]+)\n((    [^\n]*\n)*)")
        set(title "${CMAKE_MATCH_1}")
        set(score "${CMAKE_MATCH_3}/${CMAKE_MATCH_4}")
        set(got ${CMAKE_MATCH_3})
        set(max ${CMAKE_MATCH_4})
        set(failure "${CMAKE_MATCH_5}")
        string(REGEX REPLACE "\n    " "\n" failure "\n${failure}")
        string(STRIP "${failure}" failure)
        if(NOT name STREQUAL "total")
          json_escape("${title}" j_title)
          json_escape("${failure}" j_failure)
          if(NOT tests_json STREQUAL "")
            string(APPEND tests_json ",\n")
          endif()
          string(APPEND tests_json "    {\"name\": \"${j_title}\", \"score\": ${got}, "
                 "\"max_score\": ${max}, \"output\": \"${j_failure}\"}")
        endif()
      endif()
      string(APPEND row ",${score}")
    endforeach()
  endforeach()
  # A grade that stopped early has one part: the configure, the build or
  # the run that failed.
  if(grade MATCHES "\n((configure|build|tests) \\.+ 0/1)\n((    [^\n]*\n)*)")
    set(title "${CMAKE_MATCH_2}")
    set(failure "${CMAKE_MATCH_3}")
    string(REGEX REPLACE "\n    " "\n" failure "\n${failure}")
    string(STRIP "${failure}" failure)
    json_escape("${failure}" j_failure)
    string(CONCAT tests_json "    {\"name\": \"${title}\", \"score\": 0, "
           "\"max_score\": 1, \"output\": \"${j_failure}\"}")
  endif()
  set(weighted "")
  if(grade MATCHES "\nscore: ([0-9.]+) of 100")
    set(weighted ${CMAKE_MATCH_1})
  endif()
  set(first "")
  if(status MATCHES "budget")
    set(first "stopped at the budget of ${BUDGET} s")
  elseif(grade MATCHES "first failure: ([^\n]*(\n    \\|[^\n]*)?)")
    set(first "${CMAKE_MATCH_1}")
    string(REGEX REPLACE ":?\n +\\| *" ": " first "${first}")
  endif()
  csv_escape("${first}" first_csv)
  string(APPEND row ",${weighted},${first_csv}\n")
  string(APPEND csv "${row}")

  set(json_score ${weighted})
  if(json_score STREQUAL "")
    set(json_score 0)
  endif()
  json_escape("${status}" j_status)
  json_escape("${grade}" j_grade)
  file(WRITE ${OUT}/json/${student}.json
       "{\n  \"score\": ${json_score},\n  \"max_score\": 100,\n"
       "  \"output\": \"${j_status}\\n${j_grade}\",\n  \"tests\": [\n${tests_json}\n  ]\n}\n")
endforeach()
file(WRITE ${OUT}/grades.csv "${csv}")
file(WRITE ${OUT}/grades.txt "${text}")
message(STATUS "grade_class: graded ${count} students in ${took} s: ${OUT}/grades.csv, "
               "${OUT}/grades.txt, ${OUT}/json/")
execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${csv}")
