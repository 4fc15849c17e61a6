# class_check.cmake -- cmake/grade_class.cmake on a class of six fake
# students of one lab, and the order their grades must come in:
#
#   reference        the lab's answers: 100
#   stub             the untouched handout: near 0
#   wrong            a wrong answer (WRONG, in labs/<CHAPTER>/wrong/): below 100
#   edits_a_test     the untouched handout, with checks that never fail in
#                    its copy of taal_check.h: no more than the stub
#   does_not_build   the answers with a line that is not C: "does not build"
#   loops_forever    the answers with a loop at the start of FUNCTION: its
#                    tests stop at their time limit, and it scores below 100
#
#   cmake -DCHAPTER=01_awaitable -DWRONG=send_forgets_running
#         -DFILE=chapters/01_awaitable/src/taal.c -DFUNCTION="int taal_send(taal_coro *co)"
#         -DDIR=<scratch folder> -P labs/class_check.cmake
#
# CMAKE_ARGS is passed on. This is the lab.chNN.grade_class test.
cmake_minimum_required(VERSION 3.25)
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
file(REMOVE_RECURSE ${DIR})
set(subs ${DIR}/submissions)

function(make_handout student variant)
  execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${subs}/${student}
                          -DVARIANT=${variant} -P ${root}/cmake/handout.cmake
                  OUTPUT_QUIET RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "could not make ${student}'s handout")
  endif()
endfunction()
make_handout(reference reference)
make_handout(stub stub)
make_handout(wrong ${WRONG})
make_handout(edits_a_test stub)
file(READ ${subs}/edits_a_test/tests/include/taal_check.h text)
string(REPLACE "if (!(cond))" "if (0 && !(cond))" text "${text}")
string(REPLACE "if (taal__a != taal__b)" "if (0)" text "${text}")
file(WRITE ${subs}/edits_a_test/tests/include/taal_check.h "${text}")
make_handout(does_not_build reference)
file(APPEND ${subs}/does_not_build/${FILE} "\nthis line is not C\n")
make_handout(loops_forever reference)
file(READ ${subs}/loops_forever/${FILE} text)
string(FIND "${text}" "${FUNCTION}\n{\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no '${FUNCTION}' in ${FILE}")
endif()
string(REPLACE "${FUNCTION}\n{\n" "${FUNCTION}\n{\n    for (volatile int forever = 1; forever;) {\n    }\n"
       text "${text}")
file(WRITE ${subs}/loops_forever/${FILE} "${text}")

set(args -DSUBMISSIONS=${subs} -DCHAPTER=${CHAPTER} -DOUT=${DIR}/out -DTIME_LIMIT=2
    -DBUDGET=600)
if(DEFINED CMAKE_ARGS)
  list(APPEND args "-DCMAKE_ARGS=${CMAKE_ARGS}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${args} -P ${root}/cmake/grade_class.cmake
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE status)
message("${out}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "grade_class failed")
endif()

set(failures)
# The CSV: student,status,<exercises...>,unit tests,documented output,
# earlier chapters,total,score,"first failure".
# (Read whole: file(STRINGS) cuts a line at a character outside ASCII, and
# compilers quote names with ‘ ’. A ';' would split the list: no matter.)
file(READ ${DIR}/out/grades.csv csv)
string(REPLACE ";" "," csv "${csv}")
string(REGEX REPLACE "\n$" "" csv "${csv}")
string(REPLACE "\n" ";" rows "${csv}")
list(POP_FRONT rows header)
foreach(row IN LISTS rows)
  # The first failure is the last field, and the only quoted one.
  string(FIND "${row}" ",\"" at)
  string(SUBSTRING "${row}" 0 ${at} fields)
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${row}" ${at} -1 first)
  string(REPLACE "," ";" fields "${fields}")
  list(GET fields 0 student)
  list(GET fields 1 status)
  list(GET fields -1 score)
  set(status_${student} "${status}")
  set(score_${student} "${score}")
  set(first_${student} "${first}")
  if(NOT EXISTS ${DIR}/out/json/${student}.json)
    list(APPEND failures "no JSON for ${student}")
  endif()
endforeach()
macro(expect what)
  if(NOT (${ARGN}))
    list(APPEND failures "${what}")
  endif()
endmacro()
# Scores in tenths, to compare as integers.
foreach(s reference stub wrong edits_a_test does_not_build loops_forever)
  if(NOT score_${s} MATCHES "^[0-9]+\\.[0-9]$")
    set(score_${s} 0.0)
  endif()
  string(REPLACE "." "" tenths_${s} "${score_${s}}")
  math(EXPR tenths_${s} "${tenths_${s}} + 0")
endforeach()
expect("the reference scores 100 (${score_reference})" tenths_reference EQUAL 1000)
expect("the stub scores near 0 (${score_stub})" tenths_stub LESS 200)
expect("the wrong answer scores below 100 (${score_wrong})" tenths_wrong LESS 1000)
expect("a wrong answer scores above the stub" tenths_wrong GREATER tenths_stub)
expect("editing a test is not rewarded (${score_edits_a_test} > ${score_stub})"
       NOT tenths_edits_a_test GREATER tenths_stub)
expect("a compile error is reported (${status_does_not_build})"
       status_does_not_build STREQUAL "does not build")
expect("a compile error scores 0 (${score_does_not_build})" tenths_does_not_build EQUAL 0)
expect("a loop scores below 100 (${score_loops_forever})" tenths_loops_forever LESS 1000)
expect("a loop is reported as one (${first_loops_forever})"
       first_loops_forever MATCHES "time limit|budget")
if(failures)
  string(REPLACE ";" "\n  " failures "${failures}")
  message(FATAL_ERROR "grade_class on six fake students of ${CHAPTER}:\n  ${failures}")
endif()
message("grade_class on six fake students of ${CHAPTER}: in the expected order")
