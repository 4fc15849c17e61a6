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
#   -DSANITIZE=OFF      leave out the sanitizer pass (below)
#   -DSANITIZE=ALL      build and run everything under AddressSanitizer and
#                       UndefinedBehaviorSanitizer, in build-asan/, instead
#                       of the ordinary build and the pass (slower: 1.7
#                       times an ordinary grade, the pass 1.3 to 1.5)
#   -DONLY="exercise N" grade exercise N alone: build only what its tests
#                       need and run only them (and their sanitizer pass);
#                       the other parts say "not run", and no score out of
#                       100 is given. A quick check of one exercise.
#
# The sanitizer pass (the default): after the ordinary build's tests, the
# chapter and the exercises' tests are built again, in build-asan/, under
# AddressSanitizer and UndefinedBehaviorSanitizer, and every exercise test
# that passed is run once more. A use of freed memory, an overrun, a leak or
# undefined behaviour often passes an ordinary build (the freed block still
# holds its old values); under the sanitizers it fails, and such a test
# counts as failed, with the report's first lines shown. Where the compiler
# has no sanitizers (MSVC, MinGW), the pass is left out and the grade says so.
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

# SANITIZE: ON (the sanitizer pass; the default), OFF, or ALL.
if(NOT DEFINED SANITIZE OR SANITIZE STREQUAL "")
  set(SANITIZE ON)
endif()
string(TOUPPER "${SANITIZE}" SANITIZE)
set(sanitize_all FALSE)
set(sanitize_pass FALSE)
if(SANITIZE STREQUAL "ALL")
  set(sanitize_all TRUE)
elseif(SANITIZE)
  set(sanitize_pass TRUE)
endif()
set(build ${DIR}/build)
set(asan_build ${DIR}/build-asan)
if(sanitize_all)
  set(build ${asan_build})
endif()

# ONLY: "exercise N", its number.
set(only "")
if(DEFINED ONLY AND NOT ONLY STREQUAL "")
  list(LENGTH LAB_EXERCISES n)
  if(ONLY MATCHES "^exercise ([0-9]+)$")
    set(only ${CMAKE_MATCH_1})
  endif()
  if(only STREQUAL "" OR only LESS 1 OR only GREATER n)
    message(FATAL_ERROR "ONLY names one exercise, \"exercise 1\" to \"exercise ${n}\", "
                        "not \"${ONLY}\"")
  endif()
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
# A second failure, if given, is the first under the sanitizers, when
# another came before it.
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
  if(ARGC GREATER 4 AND NOT "${ARGV4}" STREQUAL "")
    grade_short("${ARGV4}" shown)
    string(REPLACE "\n" "\n    | " shown "${shown}")
    string(APPEND report "    first failure under the sanitizers: ${shown}\n")
  endif()
  math(EXPR total_passed "${total_passed} + ${passed}")
  math(EXPR total_count "${total_count} + ${count}")
  set_property(GLOBAL APPEND PROPERTY grade_parts "${title}")
  set_property(GLOBAL PROPERTY "grade_score:${title}" "${passed};${count}")
  set(report "${report}" PARENT_SCOPE)
  set(total_passed ${total_passed} PARENT_SCOPE)
  set(total_count ${total_count} PARENT_SCOPE)
endfunction()

# A part left out by ONLY: "unit tests ........ not run".
function(grade_not_run title)
  set(line "${title} ")
  string(LENGTH "${line}" length)
  while(length LESS 48)
    string(APPEND line ".")
    math(EXPR length "${length} + 1")
  endwhile()
  string(APPEND report "${line} not run\n")
  set(report "${report}" PARENT_SCOPE)
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
  if(only STREQUAL "")
    grade_weighted(weighted)
  else()
    set(weighted "score: none, only exercise ${only} was graded (-DONLY)")
  endif()
  if(NOT sanitize_note STREQUAL "")
    string(APPEND weighted "\n${sanitize_note}")
  endif()
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
# recovery), so the test it happens in fails. (macOS's AddressSanitizer
# has no leak detection, and stops at being asked for it.)
set(sanitize_flags "${flags}")
string(APPEND sanitize_flags " -fsanitize=address,undefined -fno-sanitize-recover=all"
       " -fno-omit-frame-pointer -g")
string(STRIP "${sanitize_flags}" sanitize_flags)
set(leaks 1)
if(CMAKE_HOST_APPLE)
  set(leaks 0)
endif()
set(sanitize_env ${CMAKE_COMMAND} -E env
    "ASAN_OPTIONS=detect_leaks=${leaks}:abort_on_error=0:strict_string_checks=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
set(sanitize_configure_args ${configure_args} "-DCMAKE_C_FLAGS=${sanitize_flags}")
set(test_env)
if(sanitize_all)
  set(flags "${sanitize_flags}")
  set(flags_given TRUE)
  set(test_env ${sanitize_env})
endif()
if(flags_given)
  list(APPEND configure_args "-DCMAKE_C_FLAGS=${flags}")
endif()
# A build folder made for another place (the handout was copied or moved)
# cannot be configured again: start it afresh.
function(grade_fresh build)
  if(EXISTS ${build}/CMakeCache.txt)
    file(STRINGS ${build}/CMakeCache.txt home REGEX "^CMAKE_HOME_DIRECTORY:")
    string(REGEX REPLACE "^[^=]*=" "" home "${home}")
    if(NOT home STREQUAL DIR)
      message(STATUS "grade: ${build} was made for ${home}: starting it afresh")
      file(REMOVE_RECURSE ${build})
    endif()
  endif()
endfunction()
grade_fresh(${build})
message(STATUS "grade: configuring")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${DIR} -B ${build} ${configure_args}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  grade_first_error("${out}" why)
  grade_part("configure" 0 1 "the handout does not configure:\n${why}")
  grade_print()
  return()
endif()
# With ONLY, only the chapter's library is built here, and the exercise's
# first test builds its tests (one at a time: the library, on all cores,
# first). A compile error in the library then fails that exercise, with
# the compiler's message. (An exercise with documented output of its own
# needs the chapter's programs: everything is built for it.)
set(only_outputs FALSE)
if(NOT only STREQUAL "")
  math(EXPR index "${only} - 1")
  list(GET LAB_EXERCISES ${index} exercise)
  if(LAB_${exercise}_OUTPUTS)
    set(only_outputs TRUE)
  endif()
endif()
if(only STREQUAL "" OR only_outputs)
  message(STATUS "grade: building (a compile error here fails the build, and the grade)")
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j ${cores}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    grade_build_errors("${out}" why)
    grade_part("build" 0 1 "it does not build, so nothing could be tested:\n${why}")
    grade_print()
    return()
  endif()
else()
  message(STATUS "grade: building the chapter's library")
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j ${cores} --target taal_${id}
                  OUTPUT_QUIET ERROR_QUIET)
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

# Runs the tests of `folder` that `run_filter` (ctest's arguments) selects,
# under `run_env` (a command prefix), and reads how each went:
# <prefix>status_of_<test> ("run" when it passed), <prefix>output_of_<test>,
# and <prefix>stopped_<test> ("Timeout", "Exception: ...") for one stopped.
# <prefix>console is what ctest printed; <prefix>xml is FALSE if ctest
# wrote no results.
macro(grade_run folder prefix)
  file(REMOVE ${folder}/grade.xml) # an earlier run's is not read as this one's
  execute_process(COMMAND ${run_env} ${CMAKE_CTEST_COMMAND} --test-dir ${folder} -j ${JOBS}
                          ${run_filter} --output-junit ${folder}/grade.xml
                          --test-output-size-passed 1000000 --test-output-size-failed 1000000
                  OUTPUT_VARIABLE ${prefix}console ERROR_VARIABLE ${prefix}console)
  # What ctest printed says which tests timed out or crashed; the JUnit file
  # holds every test's status and output.
  string(REGEX MATCHALL "Test +#[0-9]+: [^ \n]+ [^\n]*\\*\\*\\*(Timeout|Exception)[^\n]*"
         stopped "${${prefix}console}")
  foreach(line IN LISTS stopped)
    string(REGEX REPLACE "^Test +#[0-9]+: ([^ ]+) .*\\*\\*\\*([^ ]+( [^ 0-9]+)*).*" "\\1;\\2"
           pair "${line}")
    list(GET pair 0 name)
    list(GET pair 1 how)
    set(${prefix}stopped_${name} "${how}")
  endforeach()
  set(${prefix}xml FALSE)
  if(EXISTS ${folder}/grade.xml)
    set(${prefix}xml TRUE)
    file(READ ${folder}/grade.xml xml)
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
      set(${prefix}status_of_${name} "${CMAKE_MATCH_1}")
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
      set(${prefix}output_of_${name} "${output}")
    endforeach()
  endif()
endmacro()

set(run_env ${test_env})
set(run_filter)
if(NOT only STREQUAL "")
  set(run_filter -R "^${id}\\.exercise${only}\\.")
  set(count "exercise ${only}'s")
endif()
message(STATUS "grade: running ${count} tests, ${JOBS} at a time")
string(TIMESTAMP began "%s")
grade_run(${build} "")
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${began}")
message(STATUS "grade: ran ${count} tests in ${took} s")
if(NOT xml)
  grade_first_error("${console}" why)
  grade_part("tests" 0 1 "ctest did not run:\n${why}")
  grade_print()
  return()
endif()

# ---- the sanitizer pass ----------------------------------------------------------

# The exercise tests that passed (not an exercise's build, nor its pages of
# documented output), built again under the sanitizers and run once more.
# One that fails there counts as failed, with the sanitizer's report.
set(sanitize_note "")
set(sanitized)
if(sanitize_pass)
  set(pages)
  set(n 0)
  foreach(exercise IN LISTS LAB_EXERCISES)
    math(EXPR n "${n} + 1")
    foreach(page IN LISTS LAB_${exercise}_OUTPUTS)
      get_filename_component(page ${page} NAME_WE)
      list(APPEND pages ${id}.exercise${n}.${page})
    endforeach()
  endforeach()
  set(again)
  foreach(name IN LISTS names)
    if(name MATCHES "^${id}\\.exercise[0-9]+\\.(.*)$" AND NOT CMAKE_MATCH_1 STREQUAL "build"
       AND NOT name IN_LIST pages AND "${status_of_${name}}" STREQUAL "run")
      list(APPEND again ${name})
    endif()
  endforeach()
  list(LENGTH again n_again)
  # The compiler the ordinary build found: MSVC and MinGW have no
  # AddressSanitizer to build with.
  set(compiler "")
  file(GLOB compiler_files ${build}/CMakeFiles/*/CMakeCCompiler.cmake)
  foreach(file IN LISTS compiler_files)
    file(STRINGS ${file} lines REGEX "^set\\(CMAKE_C_(COMPILER_ID|SIMULATE_ID|PLATFORM_ID) ")
    string(APPEND compiler "${lines}")
  endforeach()
  if(compiler MATCHES "\"(MSVC|MinGW|Cygwin|MSYS|Windows)\"")
    string(CONCAT sanitize_note "sanitizers: left out, this compiler has none "
                  "(${CMAKE_MATCH_1}): the scores are the ordinary build's")
  elseif(n_again EQUAL 0)
    set(sanitize_note "sanitizers: no exercise test passed, so none ran again under them")
  else()
    message(STATUS "grade: building again under the sanitizers, in ${asan_build}")
    grade_fresh(${asan_build})
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${DIR} -B ${asan_build}
                            ${sanitize_configure_args}
                    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT status EQUAL 0)
      grade_first_error("${out}" why)
      string(CONCAT sanitize_note "sanitizers: left out, the handout does not configure "
                    "with them (${why}): the scores are the ordinary build's")
    else()
      # The library on all cores first (the exercises' build tests go one
      # at a time); a failure here shows in those tests.
      execute_process(COMMAND ${CMAKE_COMMAND} --build ${asan_build} -j ${cores}
                              --target taal_${id} OUTPUT_QUIET ERROR_QUIET)
      string(REPLACE "." "\\." pattern "${again}")
      string(REPLACE ";" "|" pattern "${pattern}")
      set(run_env ${sanitize_env})
      set(run_filter -R "^(${pattern})$")
      message(STATUS "grade: running the ${n_again} exercise tests that passed under the "
                     "sanitizers")
      string(TIMESTAMP began "%s")
      grade_run(${asan_build} asan_)
      string(TIMESTAMP ended "%s")
      math(EXPR took "${ended} - ${began}")
      message(STATUS "grade: ran them in ${took} s")
      set(slow 0)
      set(unbuilt)
      foreach(name IN LISTS again)
        string(REGEX REPLACE "^(${id}\\.exercise[0-9]+)\\..*" "\\1.build" build_test "${name}")
        if("${asan_status_of_${name}}" STREQUAL "run")
          continue()
        elseif(NOT "${asan_status_of_${build_test}}" STREQUAL "run")
          list(APPEND unbuilt ${build_test})
        elseif(DEFINED asan_stopped_${name} AND asan_stopped_${name} STREQUAL "Timeout")
          math(EXPR slow "${slow} + 1") # slower under them, not wrong
        else()
          list(APPEND sanitized ${name})
          set(status_of_${name} "sanitizer")
          set(output_of_${name} "${asan_output_of_${name}}")
          if(DEFINED asan_stopped_${name})
            set(stopped_${name} "${asan_stopped_${name}}")
          endif()
        endif()
      endforeach()
      list(LENGTH sanitized n_failed)
      string(CONCAT sanitize_note "sanitizers: the ${n_again} exercise tests that passed "
                    "ran again under ASan+UBSan: ")
      if(n_failed EQUAL 0)
        string(APPEND sanitize_note "none failed")
      else()
        string(APPEND sanitize_note "${n_failed} failed, counted as failed above")
      endif()
      if(slow GREATER 0)
        string(APPEND sanitize_note "; ${slow} reached the time limit, not counted")
      endif()
      list(REMOVE_DUPLICATES unbuilt)
      foreach(build_test IN LISTS unbuilt)
        grade_build_errors("${asan_output_of_${build_test}}" why)
        string(APPEND sanitize_note "\n  ${build_test} did not build under them, so its "
                      "tests are not counted against you:\n  ${why}")
      endforeach()
    endif()
  endif()
endif()

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
    elseif(line MATCHES "^ +#[0-9]+ " OR line MATCHES "is located .* region"
           OR line MATCHES "^ *This frame has")
      # a frame without a function's name, where in its block the address is
    elseif(line MATCHES "^ +${open}[0-9]+, [0-9]+\\) ('.*)$")
      # a stack frame's variables: the one overrun, not the others
      set(variable "${CMAKE_MATCH_1}")
      if(variable MATCHES "<== ")
        string(APPEND report "${variable}\n")
      endif()
    elseif(line MATCHES "^Address 0x[0-9a-f]+ is located in stack of thread T[0-9]+ .*in frame")
      string(APPEND report "the variable overrun, on the stack:\n")
      set(frames 0)
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
  if(status_of_${name} STREQUAL "sanitizer")
    set(why "failed under the sanitizers (it passed the ordinary build): ")
  elseif(DEFINED stopped_${name} AND stopped_${name} STREQUAL "Timeout")
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
  set(sanitizer_failure "")
  set(sanitizer_shown FALSE)
  foreach(name IN LISTS ${list_var})
    if(status_of_${name} STREQUAL "run")
      math(EXPR passed "${passed} + 1")
    elseif(failure STREQUAL "")
      grade_why(${name} failure)
      if(status_of_${name} STREQUAL "sanitizer")
        set(sanitizer_shown TRUE)
      endif()
    elseif(status_of_${name} STREQUAL "sanitizer" AND NOT sanitizer_shown)
      grade_why(${name} sanitizer_failure)
      set(sanitizer_shown TRUE)
    endif()
  endforeach()
  grade_part("${title}" ${passed} ${count} "${failure}" "${sanitizer_failure}")
  set(report "${report}" PARENT_SCOPE)
  set(total_passed ${total_passed} PARENT_SCOPE)
  set(total_count ${total_count} PARENT_SCOPE)
endfunction()

if(NOT only STREQUAL "")
  grade_not_run("unit tests")
  if(TAAL_LAB_EARLIER)
    grade_not_run("earlier chapters")
  endif()
  grade_not_run("documented output")
else()
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
endif()

list(REMOVE_DUPLICATES exercise_numbers)
set(n 0)
foreach(exercise IN LISTS LAB_EXERCISES)
  math(EXPR n "${n} + 1")
  if(NOT only STREQUAL "" AND NOT n EQUAL only)
    grade_not_run("exercise ${n} (${LAB_${exercise}_TITLE})")
    continue()
  endif()
  grade_tests("exercise ${n} (${LAB_${exercise}_TITLE})" exercise_${n}
              "${exercise_build_${n}}")
endforeach()

grade_print()
