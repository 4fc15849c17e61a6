# grade.cmake -- grade a lab handout: build it, run every test within its
# time limit, and score each part.
#
#   cmake -P grade.cmake                  in a handout's folder
#   cmake -DCHAPTER=02_custom_loop -P cmake/grade.cmake
#                                         in the book's repository: makes a
#                                         handout of the chapter as it is in
#                                         the working tree (your own answers,
#                                         if you wrote some), in
#                                         build-lab/02_custom_loop, and grades it
#
# Options:
#   -DDIR=<folder>      grade the handout in <folder> instead
#   -DVARIANT=<v>       with CHAPTER: the handout to make and grade (default:
#                       chapter; reference adds the lab's solutions, stub is
#                       what students start from; see cmake/handout.cmake)
#   -DJOBS=<n>          tests run at once (default: two per core, at least 4;
#                       a test stuck in a loop holds its slot until its limit)
#   -DTIME_LIMIT=<s>    the time limit of each test and of each documented
#                       program (default: 10 s a test, 5 s a program)
#   -DCMAKE_ARGS=<a|b>  more arguments for configuring the handout, separated
#                       by '|' (e.g. -DCMAKE_C_COMPILER=clang)
#   -DSANITIZE=ON       build and run under AddressSanitizer and
#                       UndefinedBehaviorSanitizer, in build-asan/ (the
#                       ordinary grade's build/ is left as it is): a use of
#                       freed memory, an overrun, a leak or undefined
#                       behaviour fails the test it happens in, and the
#                       grade shows the report's first lines. Slower; it
#                       catches what an ordinary build lets pass.
#
# The parts: the chapter's own unit tests, the earlier chapters' unit tests
# run against it, its documented output (every program the tutorial shows
# the output of), and each exercise's tests. For each: the score and the
# first failure, with its message; then the total. The grade exits 0 once it
# has graded, whatever the score; it fails only if it could not grade.
cmake_minimum_required(VERSION 3.25)

if(DEFINED CHAPTER)
  get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
  if(NOT DEFINED DIR)
    set(DIR ${root}/build-lab/${CHAPTER})
  endif()
  if(NOT DEFINED VARIANT)
    set(VARIANT chapter)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${DIR}
                          -DVARIANT=${VARIANT} -P ${root}/cmake/handout.cmake
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "could not make the handout of ${CHAPTER}")
  endif()
elseif(NOT DEFINED DIR)
  set(DIR ${CMAKE_CURRENT_LIST_DIR})
endif()
get_filename_component(DIR ${DIR} ABSOLUTE)
if(NOT EXISTS ${DIR}/lab.cmake)
  message(FATAL_ERROR "${DIR} is not a lab handout (it has no lab.cmake). In the book's "
                      "repository, name a chapter: cmake -DCHAPTER=02_custom_loop -P "
                      "cmake/grade.cmake")
endif()
include(${DIR}/lab.cmake)
string(REGEX REPLACE "^([0-9]+).*" "ch\\1" id ${TAAL_LAB_CHAPTER})
set(build ${DIR}/build)
if(SANITIZE)
  set(build ${DIR}/build-asan)
endif()

cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
if(NOT DEFINED JOBS)
  math(EXPR JOBS "2 * ${cores}")
  if(JOBS LESS 4)
    set(JOBS 4)
  endif()
endif()

# ---- the report -----------------------------------------------------------------

# CMake lists split on ';' and treat '[', ']' and '\\' specially: text
# split into lines has them encoded first, and decoded after.
string(ASCII 1 semi)
string(ASCII 2 open)
string(ASCII 3 close)
string(ASCII 4 backslash)

set(report "")
set(total_passed 0)
set(total_count 0)

# Shortens the handout's own paths in a message, which is otherwise all path.
function(grade_short text out)
  string(REPLACE "${DIR}/" "" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# One part: "unit tests .......... 52/60", then its first failure, if any:
# the test's name and its message, each line indented.
function(grade_part title passed count failure)
  set(line "${title} ")
  string(LENGTH "${line}" length)
  while(length LESS 48)
    string(APPEND line ".")
    math(EXPR length "${length} + 1")
  endwhile()
  string(APPEND report "${line} ${passed}/${count}\n")
  if(NOT "${failure}" STREQUAL "")
    grade_short("${failure}" shown)
    string(REPLACE "\n" "\n    | " shown "${shown}")
    string(APPEND report "    first failure: ${shown}\n")
  endif()
  math(EXPR total_passed "${total_passed} + ${passed}")
  math(EXPR total_count "${total_count} + ${count}")
  set_property(GLOBAL APPEND PROPERTY grade_parts "${title}")
  set_property(GLOBAL PROPERTY "grade_score:${title}" "${passed};${count}")
  set(report "${report}" PARENT_SCOPE)
  set(total_passed ${total_passed} PARENT_SCOPE)
  set(total_count ${total_count} PARENT_SCOPE)
endfunction()

# Points out of `weight` for `passed` of `count` tests, in tenths.
function(grade_tenths weight passed count out)
  if(count EQUAL 0)
    set(${out} 0 PARENT_SCOPE)
    return()
  endif()
  math(EXPR tenths "(${weight} * 10 * ${passed} + ${count} / 2) / ${count}")
  set(${out} ${tenths} PARENT_SCOPE)
endfunction()
function(grade_decimal tenths out)
  math(EXPR whole "${tenths} / 10")
  math(EXPR tenth "${tenths} % 10")
  set(${out} "${whole}.${tenth}" PARENT_SCOPE)
endfunction()

# The weighted score, out of 100: GRADE_WEIGHTS (below, or the lab's
# LAB_WEIGHTS) shares it out between the exercises (equally between them),
# the unit tests and the documented output, each part by the share of its
# tests that pass. The earlier chapters' tests are a prerequisite, shown
# apart: an untouched handout passes them all, and would score for it.
set(GRADE_WEIGHTS "exercises=60;unit tests=25;documented output=15")
if(DEFINED LAB_WEIGHTS)
  set(GRADE_WEIGHTS "${LAB_WEIGHTS}")
endif()
function(grade_weighted out)
  get_property(parts GLOBAL PROPERTY grade_parts)
  set(exercises)
  foreach(part IN LISTS parts)
    if(part MATCHES "^exercise [0-9]+")
      list(APPEND exercises "${part}")
    endif()
  endforeach()
  list(LENGTH exercises n_exercises)
  set(total 0)
  set(details "")
  foreach(entry IN LISTS GRADE_WEIGHTS)
    string(REGEX REPLACE "=.*" "" what "${entry}")
    string(REGEX REPLACE ".*=" "" weight "${entry}")
    if(what STREQUAL "exercises")
      set(sum 0)
      set(each "")
      set(i 0)
      foreach(part IN LISTS exercises)
        math(EXPR i "${i} + 1")
        get_property(score GLOBAL PROPERTY "grade_score:${part}")
        list(GET score 0 passed)
        list(GET score 1 count)
        # each exercise's share, in tenths of a point, adding up to the weight
        math(EXPR share "${weight} * 10 * ${i} / ${n_exercises} - ${weight} * 10 * (${i} - 1) / ${n_exercises}")
        math(EXPR tenths "(${share} * ${passed} + ${count} / 2) / ${count}")
        math(EXPR sum "${sum} + ${tenths}")
        grade_decimal(${tenths} got)
        grade_decimal(${share} of)
        string(REGEX REPLACE "\\.0$" "" of "${of}")
        if(NOT each STREQUAL "")
          string(APPEND each ", ")
        endif()
        string(APPEND each "${i}: ${got}/${of}")
      endforeach()
      if(n_exercises EQUAL 0)
        continue()
      endif()
      math(EXPR total "${total} + ${sum}")
      grade_decimal(${sum} got)
      string(APPEND details "\n  exercises ${got}/${weight} (${each})")
    else()
      get_property(score GLOBAL PROPERTY "grade_score:${what}")
      if(NOT score)
        continue()
      endif()
      list(GET score 0 passed)
      list(GET score 1 count)
      grade_tenths(${weight} ${passed} ${count} tenths)
      math(EXPR total "${total} + ${tenths}")
      grade_decimal(${tenths} got)
      string(APPEND details "\n  ${what} ${got}/${weight}")
    endif()
  endforeach()
  grade_decimal(${total} got)
  set(line "score: ${got} of 100${details}")
  get_property(earlier GLOBAL PROPERTY "grade_score:earlier chapters")
  if(earlier)
    list(GET earlier 0 passed)
    list(GET earlier 1 count)
    if(passed EQUAL count)
      string(APPEND line "\n  prerequisite: the earlier chapters' tests all pass")
    else()
      string(APPEND line "\n  prerequisite NOT met: ${passed} of the earlier chapters' ${count} "
             "tests pass (what they promised must still work)")
    endif()
  endif()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

function(grade_print)
  set(line "total ")
  string(LENGTH "${line}" length)
  while(length LESS 48)
    string(APPEND line ".")
    math(EXPR length "${length} + 1")
  endwhile()
  grade_weighted(weighted)
  # One echo, to standard output, so that the grade can be redirected.
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo
                          "\n${report}${line} ${total_passed}/${total_count}\n${weighted}")
endfunction()

# The first lines of `text` that say what went wrong: a compiler's error,
# CMake's, a failed check.
function(grade_first_error text out)
  string(REGEX MATCH "[^\n]*(error|Error|FAILED)[^\n]*(\n[^\n]*)?(\n[^\n]*)?" found
         "${text}")
  if(found STREQUAL "")
    string(REGEX MATCH "[^\n]+\n?$" found "${text}")
  endif()
  string(STRIP "${found}" found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The lines of a build's output that name what went wrong: the compiler's
# errors and the linker's undefined (or doubly defined) names, each once,
# at most five, without make's and collect2's summaries of them, which say
# only that something failed. Without any, the first error as above.
function(grade_build_errors text out)
  string(REPLACE ";" "${semi}" text "${text}")
  string(REPLACE "[" "${open}" text "${text}")
  string(REPLACE "]" "${close}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(found)
  set(keys)
  set(more 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "collect2|ld returned|\\*\\*\\* |^ninja: |^gmake|^make")
      continue()
    endif()
    if(line MATCHES "(fatal error|error): |undefined reference to|multiple definition of|ld: cannot find")
      # the linker's "file.o:(.text+0x1f)" is only noise
      string(REGEX REPLACE ":\\(\\.text[^)]*\\)" "" line "${line}")
      string(REGEX REPLACE "^/usr/bin/ld: |^ld: " "" line "${line}")
      string(REGEX REPLACE "CMakeFiles/[^ :]*\\.dir/" "" line "${line}")
      # the same error at another place is counted, not shown
      string(REGEX REPLACE "^[^ ]*:[0-9]+(:[0-9]+)?: " "" key "${line}")
      if(key IN_LIST keys)
        math(EXPR more "${more} + 1")
        continue()
      endif()
      list(APPEND keys "${key}")
      list(LENGTH found n)
      if(n LESS 5)
        list(APPEND found "${line}")
      else()
        math(EXPR more "${more} + 1")
      endif()
    endif()
  endforeach()
  if(NOT found)
    string(REPLACE "${semi}" ";" text "${text}")
    string(REPLACE "${open}" "[" text "${text}")
    string(REPLACE "${close}" "]" text "${text}")
    string(REPLACE ";" "\n" text "${text}")
    grade_first_error("${text}" found)
    set(${out} "${found}" PARENT_SCOPE)
    return()
  endif()
  if(more GREATER 0)
    list(APPEND found "(and ${more} more like these)")
  endif()
  string(REPLACE ";" "\n" found "${found}")
  string(REPLACE "${semi}" ";" found "${found}")
  string(REPLACE "${open}" "[" found "${found}")
  string(REPLACE "${close}" "]" found "${found}")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

message(STATUS "grade: ${TAAL_LAB_CHAPTER} in ${DIR}")

# ---- configure and build ---------------------------------------------------------

set(configure_args)
if(DEFINED TIME_LIMIT)
  list(APPEND configure_args -DTAAL_UNIT_TEST_TIMEOUT=${TIME_LIMIT}
       -DTAAL_PROGRAM_TIMEOUT=${TIME_LIMIT})
else()
  # A build folder graded before with a limit keeps it in its cache: take
  # it out, so that a grade without one runs with the chapter's own limits.
  list(APPEND configure_args -UTAAL_UNIT_TEST_TIMEOUT -UTAAL_PROGRAM_TIMEOUT)
endif()
set(flags "")
set(flags_given FALSE)
if(DEFINED CMAKE_ARGS)
  string(REPLACE "|" ";" more "${CMAKE_ARGS}")
  foreach(arg IN LISTS more)
    if(arg MATCHES "^-DCMAKE_C_FLAGS(:STRING)?=(.*)$")
      set(flags "${CMAKE_MATCH_2}")
      set(flags_given TRUE)
    else()
      list(APPEND configure_args "${arg}")
    endif()
  endforeach()
endif()
# The sanitizers' flags join any given: a report stops the program (no
# recovery), so the test it happens in fails.
set(test_env)
if(SANITIZE)
  string(APPEND flags " -fsanitize=address,undefined -fno-sanitize-recover=all"
         " -fno-omit-frame-pointer -g")
  string(STRIP "${flags}" flags)
  set(flags_given TRUE)
  set(test_env ${CMAKE_COMMAND} -E env
      "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()
if(flags_given)
  list(APPEND configure_args "-DCMAKE_C_FLAGS=${flags}")
endif()
# A build folder made for another place (the handout was copied or moved)
# cannot be configured again: start it afresh.
if(EXISTS ${build}/CMakeCache.txt)
  file(STRINGS ${build}/CMakeCache.txt home REGEX "^CMAKE_HOME_DIRECTORY:")
  string(REGEX REPLACE "^[^=]*=" "" home "${home}")
  if(NOT home STREQUAL DIR)
    message(STATUS "grade: ${build} was made for ${home}: starting it afresh")
    file(REMOVE_RECURSE ${build})
  endif()
endif()
message(STATUS "grade: configuring")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${DIR} -B ${build} ${configure_args}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  grade_first_error("${out}" why)
  grade_part("configure" 0 1 "the handout does not configure:\n${why}")
  grade_print()
  return()
endif()
message(STATUS "grade: building (a compile error here fails the build, and the grade)")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j ${cores}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  grade_build_errors("${out}" why)
  grade_part("build" 0 1 "it does not build, so nothing could be tested:\n${why}")
  grade_print()
  return()
endif()

# ---- run every test --------------------------------------------------------------

execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${build} --show-only=json-v1
                OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ctest could not list the tests")
endif()
# The listing's tests, in order, each with its time limit. CMake's
# string(JSON) parses the whole listing again at every call, which for a
# late chapter's 400 tests took seconds per grade; the listing is read
# once instead, as a stream of its "name" and numeric "value" fields. A
# test's name comes first, then its properties, each a "name" (in
# capitals: LABELS, TIMEOUT, ...) followed by its "value".
string(FIND "${listing}" "\"tests\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "ctest's listing has no tests")
endif()
string(SUBSTRING "${listing}" ${at} -1 listing)
string(REGEX MATCHALL "\"name\" *: *\"[^\"]*\"|\"value\" *: *[0-9.]+" fields "${listing}")
set(names)
set(name "")
set(property "")
foreach(field IN LISTS fields)
  if(field MATCHES "^\"name\" *: *\"([A-Z_]+)\"$")
    set(property "${CMAKE_MATCH_1}")
  elseif(field MATCHES "^\"name\" *: *\"([^\"]*)\"$")
    set(name "${CMAKE_MATCH_1}")
    set(property "")
    list(APPEND names ${name})
    set(limit_of_${name} "?")
  elseif(property STREQUAL "TIMEOUT" AND field MATCHES "([0-9.]+)$")
    string(REGEX REPLACE "\\.0*$" "" limit_of_${name} "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(LENGTH names count)

message(STATUS "grade: running ${count} tests, ${JOBS} at a time")
string(TIMESTAMP began "%s")
execute_process(COMMAND ${test_env} ${CMAKE_CTEST_COMMAND} --test-dir ${build} -j ${JOBS}
                        --output-junit ${build}/grade.xml
                        --test-output-size-passed 1000000 --test-output-size-failed 1000000
                OUTPUT_VARIABLE console ERROR_VARIABLE console)
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${began}")
message(STATUS "grade: ran ${count} tests in ${took} s")

# What ctest printed says which tests timed out or crashed; the JUnit file
# holds every test's status and output.
string(REGEX MATCHALL "Test +#[0-9]+: [^ \n]+ [^\n]*\\*\\*\\*(Timeout|Exception)[^\n]*"
       stopped "${console}")
foreach(line IN LISTS stopped)
  string(REGEX REPLACE "^Test +#[0-9]+: ([^ ]+) .*\\*\\*\\*([^ ]+( [^ 0-9]+)*).*" "\\1;\\2"
         pair "${line}")
  list(GET pair 0 name)
  list(GET pair 1 how)
  set(stopped_${name} "${how}")
endforeach()

if(NOT EXISTS ${build}/grade.xml)
  grade_first_error("${console}" why)
  grade_part("tests" 0 1 "ctest did not run:\n${why}")
  grade_print()
  return()
endif()
file(READ ${build}/grade.xml xml)
# One list element per test. CMake lists split on ';' and treat '[', ']'
# and '\' specially: encode them first, and decode each test's output.
string(REPLACE "\\" "${backslash}" xml "${xml}")
string(REPLACE ";" "${semi}" xml "${xml}")
string(REPLACE "[" "${open}" xml "${xml}")
string(REPLACE "]" "${close}" xml "${xml}")
string(REPLACE "<testcase " ";" cases "${xml}")
list(REMOVE_AT cases 0) # what comes before the first test
foreach(case IN LISTS cases)
  string(REGEX MATCH "^name=\"([^\"]*)\"" ignored "${case}")
  set(name "${CMAKE_MATCH_1}")
  string(REGEX MATCH "status=\"([a-z]*)\"" ignored "${case}")
  set(status_of_${name} "${CMAKE_MATCH_1}")
  set(output "")
  if(case MATCHES "<system-out>(.*)</system-out>")
    set(output "${CMAKE_MATCH_1}")
  endif()
  string(REPLACE "${semi}" ";" output "${output}")
  string(REPLACE "${open}" "[" output "${output}")
  string(REPLACE "${close}" "]" output "${output}")
  string(REPLACE "${backslash}" "\\" output "${output}")
  string(REPLACE "&lt;" "<" output "${output}")
  string(REPLACE "&gt;" ">" output "${output}")
  string(REPLACE "&quot;" "\"" output "${output}")
  string(REPLACE "&apos;" "'" output "${output}")
  string(REPLACE "&amp;" "&" output "${output}")
  set(output_of_${name} "${output}")
endforeach()

# A sanitizer's report, in its first lines: what happened, and where
# (the first frames of each stack: where it happened, where the memory was
# freed or allocated), without the addresses and the shadow memory.
function(grade_sanitizer_report output out)
  set(report "")
  string(REGEX MATCH "(==[0-9]+==ERROR: [A-Za-z]+Sanitizer|[^\n]*: runtime error: )[^\n]*(\n[^\n]*)*"
         found "${output}")
  if(found STREQUAL "")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(REPLACE ";" "${semi}" found "${found}")
  string(REPLACE "[" "${open}" found "${found}")
  string(REPLACE "]" "${close}" found "${found}")
  string(REPLACE "\n" ";" lines "${found}")
  set(frames 0)
  set(shown 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^(SUMMARY|Shadow bytes|HINT|previously allocated)")
      break()
    elseif(line MATCHES "^ +#[0-9]+ 0x[0-9a-f]+ in ([^ ]+) (.*)$")
      set(function "${CMAKE_MATCH_1}")
      set(where "${CMAKE_MATCH_2}")
      if(function MATCHES "^__" OR where MATCHES "libsanitizer")
        continue() # the sanitizer's own frames
      endif()
      if(frames LESS 3)
        string(APPEND report "  in ${function} ${where}\n")
      endif()
      math(EXPR frames "${frames} + 1")
    elseif(line MATCHES "^ +#[0-9]+ " OR line MATCHES "is located .* region")
      # a frame without a function's name, where in its block the address is
    elseif(NOT line MATCHES "^ *$" AND shown LESS 4)
      string(REGEX REPLACE "^==[0-9]+==(ERROR: )?" "" line "${line}")
      string(REGEX REPLACE " on (unknown )?address 0x[0-9a-f]+.*" "" line "${line}")
      string(REGEX REPLACE " at 0x[0-9a-f]+ thread T0" "" line "${line}")
      string(APPEND report "${line}\n")
      math(EXPR shown "${shown} + 1")
      set(frames 0)
    endif()
  endforeach()
  string(REPLACE "${semi}" ";" report "${report}")
  string(REPLACE "${open}" "[" report "${report}")
  string(REPLACE "${close}" "]" report "${report}")
  string(STRIP "${report}" report)
  set(${out} "${report}" PARENT_SCOPE)
endfunction()

# Why a test failed, in a few lines: how it ended, and what it said.
function(grade_why name out)
  set(output "${output_of_${name}}")
  grade_sanitizer_report("${output}" said)
  if(said STREQUAL "")
    string(REGEX MATCH
           "[^\n]*(check failed|error|Error|ERROR|FAIL|expected|Sanitizer)[^\n]*(\n    [^|\n][^\n]*)?"
           said "${output}")
  endif()
  if(said STREQUAL "")
    string(REGEX MATCH "[^\n]+\n?$" said "${output}")
  endif()
  string(STRIP "${said}" said)
  # A stub's own word (cmake/handout.cmake): which hole the test went
  # through, and which exercise fills it.
  string(REGEX REPLACE "(^|\n)a hole not filled yet was reached: [^\n]*" "" said "${said}")
  string(STRIP "${said}" said)
  string(REGEX MATCHALL "a hole not filled yet was reached: [^\n]*" holes "${output}")
  list(REMOVE_DUPLICATES holes)
  foreach(hole IN LISTS holes)
    string(REPLACE "a hole not filled yet was reached: " "" hole "${hole}")
    if(NOT said STREQUAL "")
      string(APPEND said "\n")
    endif()
    string(APPEND said "(it went through a hole not filled yet: ${hole})")
  endforeach()
  set(why "")
  if(DEFINED stopped_${name} AND stopped_${name} STREQUAL "Timeout")
    set(why "stopped at its time limit of ${limit_of_${name}} s: it never finished\n")
  elseif(DEFINED stopped_${name})
    set(why "crashed (${stopped_${name}})\n")
  elseif(status_of_${name} STREQUAL "notrun")
    set(why "not run\n")
  elseif(said STREQUAL "")
    set(why "failed, and said nothing\n")
  endif()
  string(STRIP "${why}${said}" why)
  set(${out} "${name}\n${why}" PARENT_SCOPE)
endfunction()

# ---- score each part ------------------------------------------------------------

# Tests by part, in the order ctest lists them.
set(unit)
set(earlier)
set(exercise_numbers)
foreach(name IN LISTS names)
  if(name STREQUAL "${id}.tutorial")
    continue()
  elseif(name MATCHES "^${id}\\.exercise([0-9]+)\\.(.*)$")
    set(n ${CMAKE_MATCH_1})
    list(APPEND exercise_numbers ${n})
    if(CMAKE_MATCH_2 STREQUAL "build")
      set(exercise_build_${n} ${name})
    else()
      list(APPEND exercise_${n} ${name})
    endif()
  elseif(name MATCHES "@${id}$")
    list(APPEND earlier ${name})
  elseif(name MATCHES "^${id}\\.")
    list(APPEND unit ${name})
  endif()
endforeach()

function(grade_tests title list_var build_test)
  set(passed 0)
  set(failure "")
  list(LENGTH ${list_var} count)
  if(build_test AND NOT status_of_${build_test} STREQUAL "run")
    set(failure "${build_test}\nthe exercise's tests do not build")
    grade_build_errors("${output_of_${build_test}}" why)
    if(NOT why STREQUAL "")
      set(failure "${failure}:\n${why}")
    endif()
  endif()
  foreach(name IN LISTS ${list_var})
    if(status_of_${name} STREQUAL "run")
      math(EXPR passed "${passed} + 1")
    elseif(failure STREQUAL "")
      grade_why(${name} failure)
    endif()
  endforeach()
  grade_part("${title}" ${passed} ${count} "${failure}")
  set(report "${report}" PARENT_SCOPE)
  set(total_passed ${total_passed} PARENT_SCOPE)
  set(total_count ${total_count} PARENT_SCOPE)
endfunction()

grade_tests("unit tests" unit "")
if(TAAL_LAB_EARLIER)
  grade_tests("earlier chapters" earlier "")
endif()

# The documented output: one point per program run the tutorial shows
# (doccheck's "ok ... output of" and "FAIL ... output of" lines). If the
# check did not finish, every one of them counts as failed.
set(doc "${output_of_${id}.tutorial}")
string(REGEX MATCHALL "(^|\n)ok  [^\n]*: output of [^\n]*" oks "${doc}")
string(REGEX MATCHALL "(^|\n)FAIL [^\n]*: output of [^\n]*" fails "${doc}")
list(LENGTH oks passed)
list(LENGTH fails failed)
math(EXPR count "${passed} + ${failed}")
set(failure "")
if(NOT doc MATCHES "\n[0-9]+ passed, [0-9]+ failed")
  file(STRINGS ${DIR}/docs/${TAAL_LAB_CHAPTER}.md blocks REGEX "^<!-- check: output of ")
  list(LENGTH blocks count)
  set(passed 0)
  grade_why(${id}.tutorial failure)
elseif(failed GREATER 0)
  string(REGEX MATCH "FAIL [^\n]*: output of [^\n]*(\n    [^\n]*)*" failure "${doc}")
  # Leave out the program's whole output ("stdout:" and "| ..." lines).
  string(REGEX REPLACE "\n    (\\| [^\n]*|stdout:|stderr:)" "" failure "${failure}")
  string(REGEX REPLACE "\n +" "\n" failure "${failure}")
  string(REGEX REPLACE "^FAIL " "" failure "${failure}")
endif()
grade_part("documented output" ${passed} ${count} "${failure}")

list(REMOVE_DUPLICATES exercise_numbers)
set(n 0)
foreach(exercise IN LISTS LAB_EXERCISES)
  math(EXPR n "${n} + 1")
  grade_tests("exercise ${n} (${LAB_${exercise}_TITLE})" exercise_${n}
              "${exercise_build_${n}}")
endforeach()

grade_print()
