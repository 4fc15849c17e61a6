# check_teaching.cmake -- what docs/teaching.md quotes of a lab's grade is
# what the grade prints today, for a student's handout.
#
#   cmake -DROOT=<repository> -DPAGE=<teaching.md> -DLAB=<NN_name>
#         -DSCRATCH=<folder> -DCTEST=<ctest> -P check_teaching.cmake
#
# Makes the students' handout of LAB (cmake/handout.cmake, in SCRATCH) and
# configures it, which registers its tests without building anything, and
# lists them as the grade does (ctest's listing; grade.cmake's parts: the
# chapter's unit tests, the earlier chapters' tests, each exercise's tests,
# one documented output per output block of the handout's tutorial). Then
# every quote of LAB's grade in PAGE must agree with that handout:
#
#   - a part's line ("exercise 2 (gather) ......... 3/6", "unit tests ...
#     77/80", "total ... 114/122"): its count, and an exercise's title;
#   - a row of the class grade's CSV (after its "student,status,..." header
#     line): each part's count, in a row whose status is "graded";
#   - a test's name (ch05.exercise1.some_test): the handout has that test;
#   - "docs/NN_name.md:N: output of P" and "docs/NN_name.md:N: expected 'X'
#     on line K, got ...": the handout's tutorial has P's output block on
#     line N, or the line X on line N (a handout's tutorial is shorter than
#     the book's: the answers' quotes are out of it, so its lines are not the
#     book's, and a grade names the handout's);
#   - "path/file.c:N: check failed: EXPR": the handout's file has, on line N,
#     the check's first operand (EXPR up to " == ", or all of it); a test
#     file with a hole of its own (lab 01's by_hand.c) is the book's, the
#     answer in place, since a student's numbers depend on their answer;
#   - a count in the prose, marked by a comment right after it, as
#     "156 of 156<!-- count: lab 05, earlier chapters -->": the number just
#     before the comment is that part's count ("unit tests", "earlier
#     chapters", "documented output", "exercise N", "total").
#
# Whose grade a quote is: the lab of the section it is in ("## Lab 05: ..."),
# or, outside those, the one named by a "<!-- quoted from lab 05 -->" line
# before it (until the next heading). A quote with neither fails the check,
# whichever LAB it checks. What the check cannot know without grading, it
# leaves alone: how many tests pass (the left of "5/11"), the weighted
# scores, a sanitizer's stack frames.
cmake_minimum_required(VERSION 3.25)
foreach(var ROOT PAGE LAB SCRATCH CTEST)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DROOT=<repository> -DPAGE=<page.md> -DLAB=<NN_name> "
                        "-DSCRATCH=<folder> -DCTEST=<ctest> -P check_teaching.cmake")
  endif()
endforeach()
string(REGEX MATCH "^[0-9]+" lab_number "${LAB}")
set(id "ch${lab_number}")

# ---- the handout, configured, and its tests as the grade counts them --------
set(handout ${SCRATCH}/${LAB})
execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${LAB} -DOUT=${handout}
                        -P ${ROOT}/cmake/handout.cmake
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "could not make the handout of ${LAB}:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${handout} -B ${handout}/build
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "could not configure the handout of ${LAB}:\n${out}")
endif()
execute_process(COMMAND ${CTEST} --test-dir ${handout}/build --show-only=json-v1
                RESULT_VARIABLE status OUTPUT_VARIABLE listing)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ctest could not list the tests of the handout of ${LAB}")
endif()
string(FIND "${listing}" "\"tests\"" at)
string(SUBSTRING "${listing}" ${at} -1 listing)
# A test's name is the only "name" field that is not in capitals (those are
# its properties'), as grade.cmake reads it.
string(REGEX MATCHALL "\"name\" *: *\"[^\"A-Z]*[a-z][^\"]*\"" fields "${listing}")
set(names)
set(count_unit 0)
set(count_earlier 0)
foreach(field IN LISTS fields)
  string(REGEX REPLACE "^\"name\" *: *\"(.*)\"$" "\\1" name "${field}")
  list(APPEND names ${name})
  if(name STREQUAL "${id}.tutorial")
    continue()
  elseif(name MATCHES "^${id}\\.exercise([0-9]+)\\.(.*)$")
    if(NOT CMAKE_MATCH_2 STREQUAL "build")
      math(EXPR count_exercise_${CMAKE_MATCH_1} "${count_exercise_${CMAKE_MATCH_1}} + 1")
    endif()
  elseif(name MATCHES "@${id}$")
    math(EXPR count_earlier "${count_earlier} + 1")
  elseif(name MATCHES "^${id}\\.")
    math(EXPR count_unit "${count_unit} + 1")
  endif()
endforeach()
file(STRINGS ${handout}/docs/${LAB}.md blocks REGEX "^<!-- check: output of ")
list(LENGTH blocks count_docs)
include(${handout}/lab.cmake)
set(count_total 0)
math(EXPR count_total "${count_unit} + ${count_docs}")
if(TAAL_LAB_EARLIER)
  math(EXPR count_total "${count_total} + ${count_earlier}")
endif()
set(n 0)
foreach(exercise IN LISTS LAB_EXERCISES)
  math(EXPR n "${n} + 1")
  if(NOT DEFINED count_exercise_${n})
    set(count_exercise_${n} 0)
  endif()
  set(title_exercise_${n} "${LAB_${exercise}_TITLE}")
  math(EXPR count_total "${count_total} + ${count_exercise_${n}}")
endforeach()
set(exercises ${n})
message(STATUS "${LAB}'s handout: unit tests ${count_unit}, earlier chapters ${count_earlier}, "
               "documented output ${count_docs}, ${exercises} exercises, total ${count_total}")

# The count of a part by the name the grade prints: "unit tests", "earlier
# chapters", "documented output", "exercise N", "total"; "" if none.
function(part_count part out)
  set(${out} "" PARENT_SCOPE)
  if(part STREQUAL "unit tests")
    set(${out} ${count_unit} PARENT_SCOPE)
  elseif(part STREQUAL "earlier chapters")
    set(${out} ${count_earlier} PARENT_SCOPE)
  elseif(part STREQUAL "documented output")
    set(${out} ${count_docs} PARENT_SCOPE)
  elseif(part STREQUAL "total")
    set(${out} ${count_total} PARENT_SCOPE)
  elseif(part MATCHES "^exercise ([0-9]+)$" AND CMAKE_MATCH_1 LESS_EQUAL exercises)
    set(${out} ${count_exercise_${CMAKE_MATCH_1}} PARENT_SCOPE)
  endif()
endfunction()

# ---- the page, line by line ----------------------------------------------------
# CMake lists split on ';' and treat '[', ']' and '\' specially: encoded
# before the page is split into lines, decoded in each.
string(ASCII 1 semi)
string(ASCII 2 open)
string(ASCII 3 close)
string(ASCII 4 backslash)
function(encode text out)
  string(REPLACE "\\" "${backslash}" text "${text}")
  string(REPLACE ";" "${semi}" text "${text}")
  string(REPLACE "[" "${open}" text "${text}")
  string(REPLACE "]" "${close}" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
function(decode text out)
  string(REPLACE "${semi}" ";" text "${text}")
  string(REPLACE "${open}" "[" text "${text}")
  string(REPLACE "${close}" "]" text "${text}")
  string(REPLACE "${backslash}" "\\" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
# Line `number` (from 1) of a file, decoded; `missing` if it has fewer.
function(line_of path number out)
  get_property(cached GLOBAL PROPERTY "lines:${path}" SET)
  if(NOT cached)
    file(READ ${path} text)
    encode("${text}" text)
    string(REPLACE "\n" ";" text "${text}")
    set_property(GLOBAL PROPERTY "lines:${path}" "${text}")
  endif()
  get_property(lines GLOBAL PROPERTY "lines:${path}")
  list(LENGTH lines length)
  if(number LESS 1 OR number GREATER length)
    set(${out} "missing" PARENT_SCOPE)
    return()
  endif()
  math(EXPR index "${number} - 1")
  list(GET lines ${index} line)
  decode("${line}" line)
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

file(READ ${PAGE} page)
encode("${page}" page)
string(REPLACE "\n" ";" page "${page}")
get_filename_component(page_name ${PAGE} NAME)
set(wrong "")
set(checked 0)
set(unassigned "")
set(quoted_lab "") # the lab whose grade the lines here quote
set(csv_parts "")  # the parts of a class grade's CSV, from its header
set(number 0)
macro(wrong_at what)
  string(APPEND wrong "  ${page_name}:${number}: ${what}\n")
endmacro()
foreach(line IN LISTS page)
  math(EXPR number "${number} + 1")
  decode("${line}" line)
  if(line MATCHES "^## Lab ([0-9]+)")
    set(quoted_lab ${CMAKE_MATCH_1})
    continue()
  elseif(line MATCHES "^#")
    set(quoted_lab "")
    continue()
  elseif(line MATCHES "^<!-- quoted from lab ([0-9]+) -->$")
    set(quoted_lab ${CMAKE_MATCH_1})
    continue()
  endif()
  if(NOT line MATCHES "^ *student,status," AND NOT csv_parts STREQUAL "" AND
     NOT line MATCHES "^[^ ,]+,[^,]*,")
    set(csv_parts "")
  endif()
  # What kind of quote the line is, if any.
  set(quotes OFF)
  if(line MATCHES "^ *(exercise [0-9]+ \\(.*\\)|unit tests|earlier chapters|documented output|total) \\.+ [0-9]+/[0-9]+$"
     OR line MATCHES "^ *student,status," OR NOT csv_parts STREQUAL ""
     OR line MATCHES "(^|[^A-Za-z0-9_])${id}\\.[a-z0-9_]+\\.[a-z0-9_]+"
     OR line MATCHES "(^|[^A-Za-z0-9_])ch[0-9]+\\.[a-z0-9_]+\\.[a-z0-9_]+"
     OR line MATCHES "docs/[0-9]+_[a-z_]+\\.md:[0-9]+: (output of|expected ')"
     OR line MATCHES "[A-Za-z0-9_/]+\\.[ch]:[0-9]+: check failed: "
     OR line MATCHES "<!-- count: ")
    set(quotes ON)
  endif()
  if(NOT quotes)
    continue()
  endif()
  # Lines of prose that name a test are not quotes of a grade unless they
  # mark a count; test names are checked wherever they are.
  if(quoted_lab STREQUAL "")
    if(line MATCHES "<!-- count: lab ([0-9]+),")
      # a marked count names its own lab
    elseif(line MATCHES "^ *(exercise [0-9]+ \\(|unit tests \\.|earlier chapters \\.|documented output \\.|total \\.|student,status,)|docs/[0-9]+_[a-z_]+\\.md:[0-9]+: |\\.[ch]:[0-9]+: check failed: ")
      string(APPEND unassigned "  ${page_name}:${number}: a quote of a grade in no lab's section: "
             "put '<!-- quoted from lab NN -->' before it\n")
      continue()
    endif()
  endif()
  # A marked count in the prose.
  set(rest "${line}")
  while(rest MATCHES "([0-9]+)<!-- count: lab ([0-9]+), ([a-z0-9 ]+) -->(.*)$")
    set(value ${CMAKE_MATCH_1})
    set(marked_lab ${CMAKE_MATCH_2})
    set(part "${CMAKE_MATCH_3}")
    set(rest "${CMAKE_MATCH_4}")
    if(marked_lab STREQUAL lab_number)
      part_count("${part}" count)
      if(count STREQUAL "")
        wrong_at("a count of '${part}', which lab ${LAB} has no part called")
      elseif(NOT value EQUAL count)
        wrong_at("says ${value} for lab ${LAB}'s ${part}, which counts ${count}")
      endif()
      math(EXPR checked "${checked} + 1")
    endif()
  endwhile()
  if(NOT quoted_lab STREQUAL lab_number)
    continue()
  endif()
  # A part's line.
  if(line MATCHES "^ *(exercise ([0-9]+) \\((.*)\\)|unit tests|earlier chapters|documented output|total) \\.+ [0-9]+/([0-9]+)$")
    set(part "${CMAKE_MATCH_1}")
    set(value ${CMAKE_MATCH_4})
    if(CMAKE_MATCH_2)
      set(part "exercise ${CMAKE_MATCH_2}")
      if(NOT CMAKE_MATCH_2 LESS_EQUAL exercises)
        wrong_at("lab ${LAB} has no ${part}")
        continue()
      elseif(NOT CMAKE_MATCH_3 STREQUAL title_exercise_${CMAKE_MATCH_2})
        wrong_at("${part}'s title is '${title_exercise_${CMAKE_MATCH_2}}', not '${CMAKE_MATCH_3}'")
      endif()
    endif()
    part_count("${part}" count)
    if(NOT value EQUAL count)
      wrong_at("'${part}' out of ${value}, where lab ${LAB}'s handout has ${count}")
    endif()
    math(EXPR checked "${checked} + 1")
  endif()
  # The class grade's CSV: its header names the parts, its rows count them.
  if(line MATCHES "^ *student,status,(.*)$")
    string(REPLACE "," ";" csv_parts "${CMAKE_MATCH_1}")
  elseif(NOT csv_parts STREQUAL "" AND line MATCHES "^ *[^ ,]+,graded,(.*)$")
    string(REPLACE "," ";" cells "${CMAKE_MATCH_1}")
    set(i 0)
    foreach(part IN LISTS csv_parts)
      list(LENGTH cells n)
      if(i GREATER_EQUAL n)
        break()
      endif()
      list(GET cells ${i} cell)
      math(EXPR i "${i} + 1")
      if(NOT cell MATCHES "^[0-9]+/([0-9]+)$")
        continue()
      endif()
      set(value ${CMAKE_MATCH_1})
      part_count("${part}" count)
      if(count STREQUAL "")
        wrong_at("the CSV's column '${part}' is no part of lab ${LAB}")
      elseif(NOT value EQUAL count)
        wrong_at("the CSV's '${part}' out of ${value}, where lab ${LAB}'s handout has ${count}")
      endif()
      math(EXPR checked "${checked} + 1")
    endforeach()
  endif()
  # Tests by name.
  string(REGEX MATCHALL "(^|[^A-Za-z0-9_.])${id}\\.[a-z0-9_]+\\.[a-z0-9_]+" tests "${line}")
  foreach(test IN LISTS tests)
    string(REGEX REPLACE "^[^A-Za-z0-9_.]" "" test "${test}")
    if(NOT test IN_LIST names)
      wrong_at("lab ${LAB}'s handout has no test ${test}")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
  # Lines of the handout's tutorial.
  if(line MATCHES "(docs/[0-9]+_[a-z_]+\\.md):([0-9]+): output of ([A-Za-z0-9_]+)")
    set(file "${CMAKE_MATCH_1}")
    set(at ${CMAKE_MATCH_2})
    set(program "${CMAKE_MATCH_3}")
    if(NOT EXISTS ${handout}/${file})
      wrong_at("lab ${LAB}'s handout has no ${file}")
    else()
      line_of(${handout}/${file} ${at} text)
      if(NOT text MATCHES "^<!-- check: output of ${program}[ )-]")
        wrong_at("${file}:${at} is not where the output of ${program} is in lab ${LAB}'s handout")
      endif()
    endif()
    math(EXPR checked "${checked} + 1")
  elseif(line MATCHES "(docs/[0-9]+_[a-z_]+\\.md):([0-9]+): expected '(.*)' on line [0-9]+, got")
    set(file "${CMAKE_MATCH_1}")
    set(at ${CMAKE_MATCH_2})
    set(expected "${CMAKE_MATCH_3}")
    if(NOT EXISTS ${handout}/${file})
      wrong_at("lab ${LAB}'s handout has no ${file}")
    else()
      line_of(${handout}/${file} ${at} text)
      if(NOT text STREQUAL expected)
        wrong_at("${file}:${at} in lab ${LAB}'s handout is '${text}', not '${expected}'")
      endif()
    endif()
    math(EXPR checked "${checked} + 1")
  endif()
  # Lines of a test's source.
  if(line MATCHES "([A-Za-z0-9_/]+\\.[ch]):([0-9]+): check failed: (.*)$")
    set(file "${CMAKE_MATCH_1}")
    set(at ${CMAKE_MATCH_2})
    set(expression "${CMAKE_MATCH_3}")
    string(FIND "${expression}" " == " eq)
    if(NOT eq EQUAL -1)
      string(SUBSTRING "${expression}" 0 ${eq} expression)
    endif()
    # A test file with a hole of its own (lab 01's by_hand.c) is numbered
    # as the book's, the answer in place: a student's depends on theirs.
    set(source ${handout}/${file})
    if(EXISTS ${source})
      file(STRINGS ${source} hole LIMIT_COUNT 1 REGEX "a hole not filled yet was reached")
      if(hole)
        set(source ${ROOT}/${file})
      endif()
    endif()
    if(NOT EXISTS ${source})
      wrong_at("lab ${LAB}'s handout has no ${file}")
    else()
      line_of(${source} ${at} text)
      string(FIND "${text}" "${expression}" found)
      if(found EQUAL -1)
        wrong_at("${file}:${at} in lab ${LAB}'s handout does not check '${expression}'")
      endif()
    endif()
    math(EXPR checked "${checked} + 1")
  endif()
endforeach()

string(APPEND wrong "${unassigned}")
if(NOT wrong STREQUAL "")
  message(FATAL_ERROR "${page_name} quotes lab ${LAB}'s grade as it no longer is:\n${wrong}")
endif()
message("${checked} quotes of lab ${LAB}'s grade in ${page_name} agree with its handout")
