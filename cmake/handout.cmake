# handout.cmake -- make a chapter's lab handout: the chapter with holes.
#
#   cmake -DCHAPTER=02_custom_loop -DOUT=/tmp/lab02 -P cmake/handout.cmake
#
# writes a folder that builds alone with CMake and a C compiler: the chapter
# with the bodies its lab stubs replaced by "not implemented", its unit
# tests, the earlier chapters' unit tests (to run against it), the shared
# test header, doccheck, the tutorial and the seeds it links, the lab's
# exercise tests, a README for students, and the grade command. Run it again
# on the same folder and only the files that changed are rewritten, so a
# build in it stays incremental.
#
# Options:
#   -DVARIANT=stub        the students' handout (the default)
#   -DVARIANT=chapter     the chapter as it is in this working tree: the holes
#                         keep its code, and no solution is added (what
#                         grade.cmake grades when given a chapter)
#   -DVARIANT=reference   the answers: the chapter, and each exercise's
#                         solution from labs/<CHAPTER>/solutions/ applied
#   -DVARIANT=<name>      the answers with the wrong answer
#                         labs/<CHAPTER>/wrong/<name>.cmake applied, for CI
#
# The lab is configured by labs/<CHAPTER>/lab.cmake; docs/teaching.md says
# how it all fits together and how a new chapter adds its lab.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED CHAPTER OR NOT DEFINED OUT)
  message(FATAL_ERROR "usage: cmake -DCHAPTER=<NN_name> -DOUT=<folder> "
                      "[-DVARIANT=stub|chapter|reference|<wrong answer>] -P handout.cmake")
endif()
if(NOT DEFINED VARIANT)
  set(VARIANT stub)
endif()
get_filename_component(ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
get_filename_component(OUT ${OUT} ABSOLUTE)
set(LAB ${ROOT}/labs/${CHAPTER})
if(NOT EXISTS ${ROOT}/chapters/${CHAPTER}/CMakeLists.txt)
  message(FATAL_ERROR "no chapter ${CHAPTER} in ${ROOT}/chapters")
endif()
if(NOT EXISTS ${LAB}/lab.cmake)
  message(FATAL_ERROR "chapter ${CHAPTER} has no lab: ${LAB}/lab.cmake is missing")
endif()
include(${LAB}/lab.cmake)

# ---- writing files ----------------------------------------------------------
#
# Every file of the handout is first made in memory, edits included, and
# written at the end, and only if it differs from what is there: an
# unchanged file keeps its time, so a build in the folder stays incremental.

function(lab_write path content_var)
  get_property(known GLOBAL PROPERTY lab_paths)
  if(NOT path IN_LIST known)
    set_property(GLOBAL APPEND PROPERTY lab_paths ${path})
  endif()
  set_property(GLOBAL PROPERTY "lab_file:${path}" "${${content_var}}")
endfunction()

function(lab_read path out)
  get_property(known GLOBAL PROPERTY lab_paths)
  if(NOT path IN_LIST known)
    message(FATAL_ERROR "${path} is not part of the handout")
  endif()
  get_property(content GLOBAL PROPERTY "lab_file:${path}")
  set(${out} "${content}" PARENT_SCOPE)
endfunction()

function(lab_copy from to)
  file(READ ${from} content)
  lab_write(${to} content)
endfunction()

function(lab_flush)
  get_property(paths GLOBAL PROPERTY lab_paths)
  foreach(path IN LISTS paths)
    get_property(content GLOBAL PROPERTY "lab_file:${path}")
    string(MD5 new "${content}")
    if(EXISTS ${path})
      file(MD5 ${path} old)
      if(old STREQUAL new)
        continue()
      endif()
    endif()
    file(WRITE ${path} "${content}")
  endforeach()
endfunction()

# ---- holes --------------------------------------------------------------------
#
# A hole is marked in a chapter's source by two comment lines:
#
#     /* LAB(name) BEGIN: what to write, one line */
#     ...the reference code...
#     /* LAB(name) END: the stub, e.g. (void)co; return TAAL_ENOTIMPL; */
#
# A hole the lab stubs becomes the BEGIN line (the student's instruction)
# followed by the stub, one statement a line; any other hole keeps its code
# and loses its markers.

# Each stubbed hole's code, a region: its hole, where it is, its code (see
# lab_index_answers). A name may mark several regions.
set_property(GLOBAL PROPERTY lab_region_count 0)
set_property(GLOBAL PROPERTY lab_stub_text "")

# The 1-based number of the line that `offset` (in `text`) is on.
function(lab_line_of text_var offset out)
  string(SUBSTRING "${${text_var}}" 0 ${offset} head)
  string(REGEX MATCHALL "\n" newlines "${head}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# CMake lists split on ';', and treat '[', ']' and '\' specially: a line of
# C may hold all four. lab_split() encodes them away and splits `text` into
# a list of its lines; lab_unescape() puts them back.
string(ASCII 1 SEMI)
string(ASCII 2 OPEN)
string(ASCII 3 CLOSE)
string(ASCII 4 BACKSLASH)
string(ASCII 6 PAIR) # between the two lines of a pair (lab_index_answers)
function(lab_split text out)
  string(REPLACE "\\" "${BACKSLASH}" text "${text}")
  string(REPLACE ";" "${SEMI}" text "${text}")
  string(REPLACE "[" "${OPEN}" text "${text}")
  string(REPLACE "]" "${CLOSE}" text "${text}")
  string(REPLACE "\n" ";" list "${text}")
  set(${out} "${list}" PARENT_SCOPE)
endfunction()
function(lab_unescape var)
  string(REPLACE "${SEMI}" ";" text "${${var}}")
  string(REPLACE "${OPEN}" "[" text "${text}")
  string(REPLACE "${CLOSE}" "]" text "${text}")
  string(REPLACE "${BACKSLASH}" "\\" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# Processes the markers of the file `path` (shown as `name` in errors),
# whose text is in `text_var`; the result goes to `out`. `stubbed` lists
# the holes to stub; every other hole is filled.
function(lab_holes name text_var stubbed out)
  set(rest "${${text_var}}")
  if(NOT rest MATCHES "\n$")
    string(APPEND rest "\n") # every line ends with a newline, the last one too
  endif()
  set(done "")
  set(hole_code "")
  set(found)
  set(holes_here)
  set(needs_stdio FALSE)
  set(marker "^([ \t]*)/\\* LAB\\(([A-Za-z0-9_]+)\\) (BEGIN|END):?(.*)\\*/[ \t]*$")
  while(1)
    string(FIND "${rest}" "/* LAB(" at)
    if(at EQUAL -1)
      break()
    endif()
    # Split `rest` into: before the marker's line, the line, after it.
    string(SUBSTRING "${rest}" 0 ${at} head)
    string(FIND "${head}" "\n" nl REVERSE)
    math(EXPR start "${nl} + 1")
    string(SUBSTRING "${rest}" 0 ${start} before)
    string(SUBSTRING "${rest}" ${start} -1 rest)
    string(FIND "${rest}" "\n" eol)
    string(SUBSTRING "${rest}" 0 ${eol} line)
    math(EXPR eol "${eol} + 1")
    string(SUBSTRING "${rest}" ${eol} -1 rest)
    string(APPEND done "${before}")
    if(NOT line MATCHES "${marker}")
      if(line MATCHES "^[ \t]*/\\* LAB\\([A-Za-z0-9_]+\\) (BEGIN|END)")
        string(LENGTH "${done}" length)
        lab_line_of(done ${length} n)
        message(FATAL_ERROR "${name}:${n}: a lab marker is one whole line, a comment "
                            "that ends on it: '${line}' (clang-format splits a marker "
                            "longer than its column limit: shorten it)")
      endif()
      string(APPEND done "${line}\n") # "/* LAB(" in something else
      continue()
    endif()
    set(indent "${CMAKE_MATCH_1}")
    set(hole ${CMAKE_MATCH_2})
    if(CMAKE_MATCH_3 STREQUAL "END")
      string(LENGTH "${done}" length)
      lab_line_of(done ${length} n)
      message(FATAL_ERROR "${name}:${n}: LAB(${hole}) END without a BEGIN")
    endif()
    set(begin_line "${line}")
    # The code up to the matching END, which must be the next marker.
    string(FIND "${rest}" "/* LAB(" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: LAB(${hole}) BEGIN without an END")
    endif()
    string(SUBSTRING "${rest}" 0 ${at} head)
    string(FIND "${head}" "\n" nl REVERSE)
    math(EXPR start "${nl} + 1")
    string(SUBSTRING "${rest}" 0 ${start} code)
    string(SUBSTRING "${rest}" ${start} -1 rest)
    string(FIND "${rest}" "\n" eol)
    string(SUBSTRING "${rest}" 0 ${eol} line)
    math(EXPR eol "${eol} + 1")
    string(SUBSTRING "${rest}" ${eol} -1 rest)
    if(NOT line MATCHES "${marker}" OR NOT CMAKE_MATCH_2 STREQUAL hole
       OR NOT CMAKE_MATCH_3 STREQUAL "END")
      message(FATAL_ERROR "${name}: LAB(${hole}) BEGIN is followed by '${line}', "
                          "not its END (holes do not nest)")
    endif()
    string(STRIP "${CMAKE_MATCH_4}" stub)
    list(APPEND found ${hole})
    if(hole IN_LIST stubbed)
      # The region, for lab_index_answers: the answer a handout must not give.
      get_property(region GLOBAL PROPERTY lab_region_count)
      string(LENGTH "${done}" length)
      lab_line_of(done ${length} n)
      set_property(GLOBAL PROPERTY lab_region_${region}_hole ${hole})
      set_property(GLOBAL PROPERTY lab_region_${region}_where "${name}:${n}")
      set_property(GLOBAL PROPERTY lab_region_${region}_code "${code}")
      math(EXPR region "${region} + 1")
      set_property(GLOBAL PROPERTY lab_region_count ${region})
      # The stub, one statement a line: "(void)co; return X;" is two lines.
      string(REPLACE "; " ";\n${indent}" stub "${stub}")
      # ...after a line that says, once, on standard error, which hole
      # and which exercise a run went through.
      set(where "LAB(${hole}) in ${name}")
      set(number 0)
      foreach(exercise IN LISTS LAB_EXERCISES)
        math(EXPR number "${number} + 1")
        if(LAB_${exercise}_HOLE STREQUAL hole)
          string(REPLACE "\"" "'" title "${LAB_${exercise}_TITLE}")
          string(APPEND where ", exercise ${number} (${title})")
        endif()
      endforeach()
      set(say "{ static int said; if (!said) { said = 1; fputs(\"a hole not filled yet was reached: ${where}\\n\", stderr); } }")
      string(APPEND done "${begin_line}\n${indent}${say}\n${indent}${stub}\n")
      set_property(GLOBAL APPEND_STRING PROPERTY lab_stub_text "${stub}\n")
      set(needs_stdio TRUE)
      string(APPEND hole_code "${code}")
      list(APPEND holes_here ${hole})
      set_property(GLOBAL APPEND PROPERTY lab_files_of_${hole} ${name})
    else()
      string(APPEND done "${code}")
    endif()
  endwhile()
  string(APPEND done "${rest}")
  # The stubs' message needs fputs().
  if(needs_stdio AND NOT done MATCHES "#include <stdio.h>")
    string(FIND "${done}" "#include " at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: a file with a hole has no #include to add <stdio.h> by")
    endif()
    string(SUBSTRING "${done}" 0 ${at} head)
    string(SUBSTRING "${done}" ${at} -1 tail)
    set(done "${head}#include <stdio.h>\n${tail}")
  endif()
  set(${out} "${done}" PARENT_SCOPE)
  set(lab_found_holes ${found} PARENT_SCOPE)
endfunction()

# ---- no answer in the students' handout ----------------------------------------
#
# The answer of a stubbed hole is its code, the region between its markers;
# a handout gives it away if it still holds the answer's lines elsewhere:
# a tutorial quote, a function that repeats the hole's code with a line
# changed, a test or an example with the same loop. lab_check_no_answer()
# reads every text file of the students' handout (the chapter with its holes
# stubbed, the lab's tests, the tutorial as the handout has it, the README,
# the seeds) and fails, naming the file, line, hole and reason, when it holds
# a line of an answer. Lines are compared whole, normalised: C comments
# stripped (in a tutorial, those of its code blocks), a diff quote's +/-
# column dropped, runs of blanks made one space.
#
# Not every line of an answer is one, and each exemption has a reason:
#  1. A trivial line: shorter than 8 characters (`i++;`, `}`), or naming
#     nothing but C keywords and constants (`} else {`, `break;`,
#     `return TAAL_OK;`, `case 1:;`, `return false;`). It says what happens,
#     never when or to what: the line that does names a variable, a field
#     or a function.
#  2. A line of the hole's stub: the handout shows it at the hole itself.
#  3. A line of an earlier chapter: the handout holds those whole, for their
#     tests, and the student has them anyway; this lab's answer is what this
#     chapter adds.
#  4. A line of what the exercise gives, LAB_<exercise>_GIVEN in lab.cmake:
#     files of the handout whose code the exercise rewrites (lab 01's
#     counter_by_hand is the macro-based counter_body of tests/test_coro.c
#     written out as examples/awaitable_steps.c writes coroutines). Their
#     lines are the exercise's statement; the answer is what it adds to them.
#  5. Ordinary code: a line that the handout's C code also has outside the
#     holes (`taal_task *task;`, `sem->value--;`, `wake(&s->wwait, TAAL_OK);`)
#     is a statement the chapter makes in its own right; finding it says
#     nothing of where the answer needs it. Unless it is a copy:
#     - next to the line that precedes or follows it in the answer (blank,
#       comment and trivial lines between are skipped): two lines of the
#       answer in a row, a function that repeats it, or a quote;
#     - or every line of the region that is not exempt is somewhere in the
#       handout: the whole answer is there, scattered or one line long.
#     A line that no C file of the handout has is reported wherever it is
#     (the tutorial, the README, a seed): only a quote can hold it.
#     What this lets through, knowingly: one line of a longer answer, alone
#     in another function (lab 04's task.c calls taal__inherited_priority()
#     as the answer of LAB(inherit) does): the chapter's code may use what
#     the student writes.
# The check is in the handout's generator, so every lab test, the quick
# chNN.lab_answers_apply and chNN.lab_handout_gives_no_answer included,
# runs it (labs/CMakeLists.txt also plants an answer, which it must find).
# The tutorial filter (lab_tutorial) leaves out the quoted blocks that the
# same rules find. It does not read the fuzzer's corpus or pictures.

# The C keywords and constants a trivial line is made of (1 above); an
# identifier in capitals is a constant or a macro of constants.
set(lab_keywords auto break case char const continue default do double else enum
                 extern float for goto if inline int long register restrict return
                 short signed sizeof static struct switch typedef union unsigned void
                 volatile while bool true false)

# `text` encoded as lab_split() encodes it (; [ ] \), with C comments
# stripped (`kind` C), or those of its code blocks and a diff's +/- column
# (`kind` MD), blanks made one space and lines stripped, between two
# newlines: "\nline\nline\n". A comment over several lines leaves its
# newlines, so line numbers stay those of the file. (Comments are found
# without reading strings: no string of the book holds a comment's `/*`.)
function(lab_normalise kind text_var out)
  set(text "${${text_var}}")
  string(REPLACE "\\" "${BACKSLASH}" text "${text}")
  string(REPLACE ";" "${SEMI}" text "${text}")
  string(REPLACE "[" "${OPEN}" text "${text}")
  string(REPLACE "]" "${CLOSE}" text "${text}")
  string(REPLACE "\r" "" text "${text}")
  if(kind STREQUAL "C")
    lab_strip_comments(text)
  elseif(kind STREQUAL "MD")
    lab_md_code(text)
  endif()
  string(REGEX REPLACE "[ \t]+" " " text "\n${text}\n")
  string(REPLACE "\n " "\n" text "${text}")
  string(REPLACE " \n" "\n" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(lab_strip_comments var)
  set(text "${${var}}")
  string(REGEX MATCHALL "/\\*([^*]|\\*+[^*/])*\\*+/" comments "${text}")
  foreach(comment IN LISTS comments)
    if(comment MATCHES "\n")
      string(REGEX REPLACE "[^\n]+" "" newlines "${comment}")
      string(REPLACE "${comment}" "${newlines}" text "${text}")
    endif()
  endforeach()
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# A tutorial: each fenced block's text as code (comments stripped; a diff's
# first column dropped); in prose, only comments that end on their line.
function(lab_md_code var)
  string(REPLACE "\n" ";" lines "${${var}}")
  set(text "")
  set(fence "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*(```|~~~)(.*)$")
      if(fence STREQUAL "")
        set(fence "${CMAKE_MATCH_2}")
        set(code "")
        string(APPEND text "\n")
      else()
        lab_strip_comments(code)
        string(APPEND text "${code}\n")
        set(fence "")
      endif()
    elseif(fence STREQUAL "")
      # Prose, or code indented as Markdown's plain code: only comments that
      # end on the line (`/*` alone in prose is no comment).
      string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" line "${line}")
      string(REGEX REPLACE "//.*$" "" line "${line}")
      string(APPEND text "${line}\n")
    else()
      if(fence MATCHES "^ *diff")
        string(REGEX REPLACE "^[-+ ]" "" line "${line}")
      endif()
      string(APPEND code "${line}\n")
    endif()
  endforeach()
  if(NOT fence STREQUAL "") # an unclosed block
    string(APPEND text "${code}")
  endif()
  string(REGEX REPLACE "\n$" "" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# Sets `out` to TRUE if the normalised `line` is trivial (1 above).
function(lab_trivial line out)
  set(${out} TRUE PARENT_SCOPE)
  string(LENGTH "${line}" length)
  if(length LESS 8)
    return()
  endif()
  string(REGEX REPLACE "[0-9][A-Za-z0-9_.]*" "" words "${line}") # numbers
  string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*" words "${words}")
  foreach(word IN LISTS words)
    if(NOT word IN_LIST lab_keywords AND NOT word MATCHES "^[A-Z][A-Z0-9_]*$")
      set(${out} FALSE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The kind of a file of the handout for lab_normalise: C, MD, TEXT, or
# NONE for what the check does not read (the fuzzer's corpus of binary
# inputs, pictures).
function(lab_kind path out)
  if(path MATCHES "\\.[ch]$")
    set(${out} C PARENT_SCOPE)
  elseif(path MATCHES "\\.md$")
    set(${out} MD PARENT_SCOPE)
  elseif(path MATCHES "\\.(txt|cmake|py|in|sh|dict)$")
    set(${out} TEXT PARENT_SCOPE)
  else()
    set(${out} NONE PARENT_SCOPE)
  endif()
endfunction()

# Is `path` (of the handout) in an earlier chapter?
function(lab_is_earlier path out)
  set(${out} FALSE PARENT_SCOPE)
  if(path MATCHES "^${OUT}/chapters/([^/]+)/" AND NOT CMAKE_MATCH_1 STREQUAL CHAPTER)
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# Reads the stubbed holes' regions and the handout's C code as they are once
# the chapter and the lab's tests are copied, and sets, for
# lab_block_leaks() and lab_check_no_answer():
#   lab_answers                  every answer line (exemptions 1 to 4 out)
#   lab_ans:<line>               the holes it is a line of
#   lab_code:<line>              set if the handout's C code has it (5)
#   lab_pair:<line>PAIR<line>    the holes in which the two lines, not
#                                trivial, follow each other
#   lab_region_<n>_answer        the region's answer lines
function(lab_index_answers)
  # The stubs, the earlier chapters, this chapter's C code.
  get_property(stubs GLOBAL PROPERTY lab_stub_text)
  lab_normalise(C stubs stubs)
  set_property(GLOBAL PROPERTY lab_earlier_text "\n")
  set(code "\n")
  get_property(paths GLOBAL PROPERTY lab_paths)
  foreach(path IN LISTS paths)
    if(NOT path MATCHES "\\.[ch]$")
      continue()
    endif()
    get_property(text GLOBAL PROPERTY "lab_file:${path}")
    lab_normalise(C text text)
    lab_is_earlier(${path} is_earlier)
    if(is_earlier)
      set_property(GLOBAL APPEND_STRING PROPERTY lab_earlier_text "${text}")
    else()
      string(APPEND code "${text}")
      set_property(GLOBAL PROPERTY "lab_norm:${path}" "${text}")
    endif()
  endforeach()
  get_property(earlier GLOBAL PROPERTY lab_earlier_text)
  # What each hole's exercise gives (4).
  foreach(exercise IN LISTS LAB_EXERCISES)
    set(hole ${LAB_${exercise}_HOLE})
    foreach(file IN LISTS LAB_${exercise}_GIVEN)
      lab_read(${OUT}/${file} text)
      lab_normalise(C text text)
      string(APPEND given_${hole} "${text}")
    endforeach()
  endforeach()

  get_property(count GLOBAL PROPERTY lab_region_count)
  set(answers)
  set(n 0)
  while(n LESS count)
    get_property(hole GLOBAL PROPERTY lab_region_${n}_hole)
    get_property(text GLOBAL PROPERTY lab_region_${n}_code)
    lab_normalise(C text text)
    string(REPLACE "\n" ";" lines "${text}")
    set(previous "")
    set(region_answer)
    foreach(line IN LISTS lines)
      lab_trivial("${line}" trivial)
      if(trivial)
        continue()
      endif()
      if(NOT previous STREQUAL "")
        set_property(GLOBAL APPEND PROPERTY "lab_pair:${previous}${PAIR}${line}" ${hole})
      endif()
      set(previous "${line}")
      set(exempt FALSE)
      foreach(exempted IN ITEMS stubs earlier given_${hole})
        string(FIND "${${exempted}}" "\n${line}\n" at)
        if(NOT at EQUAL -1)
          set(exempt TRUE)
          break()
        endif()
      endforeach()
      if(exempt)
        continue()
      endif()
      list(APPEND region_answer "${line}")
      get_property(holes GLOBAL PROPERTY "lab_ans:${line}")
      if(NOT hole IN_LIST holes)
        set_property(GLOBAL APPEND PROPERTY "lab_ans:${line}" ${hole})
      endif()
      if(NOT holes)
        list(APPEND answers "${line}")
        string(FIND "${code}" "\n${line}\n" at)
        if(NOT at EQUAL -1)
          set_property(GLOBAL PROPERTY "lab_code:${line}" 1)
        endif()
      endif()
    endforeach()
    set_property(GLOBAL PROPERTY lab_region_${n}_answer "${region_answer}")
    math(EXPR n "${n} + 1")
  endwhile()
  set_property(GLOBAL PROPERTY lab_answers "${answers}")
endfunction()

# The holes whose answer the normalised lines `lines_var` (a list, in order)
# give away by the rules above, read as a block of their own: a line no C
# code has, or two lines of an answer in a row. Sets `out` (empty: none).
# A line can be in two holes' answers (an anext and an aclose both send and
# test `yielded`): the holes named are the fewest that hold every line
# found, so that a quote of one hole's code names that hole alone.
function(lab_block_leaks lines_var out)
  set(items) # for each line found: its holes, joined by ","
  set(previous "")
  foreach(line IN LISTS ${lines_var})
    lab_trivial("${line}" trivial)
    if(trivial)
      continue()
    endif()
    get_property(ans GLOBAL PROPERTY "lab_ans:${line}")
    get_property(in_code GLOBAL PROPERTY "lab_code:${line}")
    if(ans AND NOT in_code)
      string(REPLACE ";" "," item "${ans}")
      list(APPEND items "${item}")
    endif()
    get_property(pair GLOBAL PROPERTY "lab_pair:${previous}${PAIR}${line}")
    if(pair)
      get_property(ans_previous GLOBAL PROPERTY "lab_ans:${previous}")
      if(ans OR ans_previous)
        string(REPLACE ";" "," item "${pair}")
        list(APPEND items "${item}")
      endif()
    endif()
    set(previous "${line}")
  endforeach()
  set(holes)
  while(items)
    # The hole that holds the most of the lines still unexplained.
    set(best "")
    set(best_count 0)
    string(REPLACE "," ";" candidates "${items}")
    list(REMOVE_DUPLICATES candidates)
    foreach(hole IN LISTS candidates)
      set(count 0)
      foreach(item IN LISTS items)
        if(",${item}," MATCHES ",${hole},")
          math(EXPR count "${count} + 1")
        endif()
      endforeach()
      if(count GREATER best_count)
        set(best ${hole})
        set(best_count ${count})
      endif()
    endforeach()
    list(APPEND holes ${best})
    set(rest)
    foreach(item IN LISTS items)
      if(NOT ",${item}," MATCHES ",${best},")
        list(APPEND rest "${item}")
      endif()
    endforeach()
    set(items "${rest}")
  endwhile()
  set(${out} "${holes}" PARENT_SCOPE)
endfunction()

# The first line, not trivial, before (`direction` -1) or after (1) the
# line at [at, at + length) of the normalised `text_var`; "" if none.
function(lab_neighbour text_var at length direction out)
  set(${out} "" PARENT_SCOPE)
  if(direction EQUAL -1)
    set(start ${at})
    set(window 0)
    while(start GREATER 0 AND window LESS 20000)
      math(EXPR window "${window} + 2000")
      math(EXPR start "${at} - ${window}")
      if(start LESS 0)
        set(start 0)
      endif()
      math(EXPR size "${at} - ${start}")
      string(SUBSTRING "${${text_var}}" ${start} ${size} part)
      string(REPLACE "\n" ";" lines "${part}")
      if(start GREATER 0)
        list(REMOVE_AT lines 0) # perhaps the end of a line only
      endif()
      list(REVERSE lines)
      foreach(line IN LISTS lines)
        lab_trivial("${line}" trivial)
        if(NOT trivial)
          set(${out} "${line}" PARENT_SCOPE)
          return()
        endif()
      endforeach()
    endwhile()
  else()
    math(EXPR start "${at} + ${length}")
    string(SUBSTRING "${${text_var}}" ${start} -1 part)
    while(NOT part STREQUAL "")
      string(SUBSTRING "${part}" 0 2000 head)
      string(LENGTH "${part}" size)
      if(size GREATER 2000)
        string(SUBSTRING "${part}" 2000 -1 part)
      else()
        set(part "")
      endif()
      string(FIND "${head}" "\n" last REVERSE)
      if(NOT part STREQUAL "" AND last GREATER -1)
        string(SUBSTRING "${head}" ${last} -1 rest) # a line cut in two
        string(SUBSTRING "${head}" 0 ${last} head)
        set(part "${rest}${part}")
      endif()
      string(REPLACE "\n" ";" lines "${head}")
      foreach(line IN LISTS lines)
        lab_trivial("${line}" trivial)
        if(NOT trivial)
          set(${out} "${line}" PARENT_SCOPE)
          return()
        endif()
      endforeach()
    endwhile()
  endif()
endfunction()

# The check itself, on the students' handout as it will be written.
function(lab_check_no_answer)
  get_property(answers GLOBAL PROPERTY lab_answers)
  get_property(paths GLOBAL PROPERTY lab_paths)
  set(files)
  set(all "")
  foreach(path IN LISTS paths)
    lab_is_earlier(${path} is_earlier)
    lab_kind(${path} kind)
    if(is_earlier OR kind STREQUAL "NONE")
      continue()
    endif()
    get_property(text GLOBAL PROPERTY "lab_norm:${path}")
    if(NOT kind STREQUAL "C" OR text STREQUAL "")
      get_property(text GLOBAL PROPERTY "lab_file:${path}")
      lab_normalise(${kind} text text)
      set_property(GLOBAL PROPERTY "lab_norm:${path}" "${text}")
    endif()
    list(APPEND files ${path})
    string(APPEND all "${text}")
  endforeach()

  set(leaks) # encoded: each may hold a line's ';'
  foreach(line IN LISTS answers)
    string(FIND "${all}" "\n${line}\n" at)
    if(at EQUAL -1)
      continue()
    endif()
    get_property(holes GLOBAL PROPERTY "lab_ans:${line}")
    get_property(in_code GLOBAL PROPERTY "lab_code:${line}")
    string(LENGTH "${line}" length)
    math(EXPR length "${length} + 1") # and the newline before it
    foreach(path IN LISTS files)
      get_property(text GLOBAL PROPERTY "lab_norm:${path}")
      set(offset 0)
      set(rest "${text}")
      while(1)
        string(FIND "${rest}" "\n${line}\n" at)
        if(at EQUAL -1)
          break()
        endif()
        math(EXPR at "${offset} + ${at}")
        set(why "")
        if(NOT in_code)
          set(why "a line of the answer that no code of the handout has")
        else()
          lab_neighbour(text ${at} ${length} -1 before)
          lab_neighbour(text ${at} ${length} 1 after)
          get_property(pair_before GLOBAL PROPERTY "lab_pair:${before}${PAIR}${line}")
          get_property(pair_after GLOBAL PROPERTY "lab_pair:${line}${PAIR}${after}")
          if(pair_before)
            set(next "${before}")
          elseif(pair_after)
            set(next "${after}")
          endif()
          if(pair_before OR pair_after)
            set(why "with the line next to it in the answer too: '${next}'")
          endif()
        endif()
        get_property(found GLOBAL PROPERTY "lab_found:${line}")
        if(NOT why STREQUAL "" OR NOT found)
          lab_line_of(text ${at} n) # its "\n" ends the line before: n is its own
          file(RELATIVE_PATH shown_path ${OUT} ${path})
        endif()
        if(NOT found) # where it is first, for a region found whole
          set_property(GLOBAL PROPERTY "lab_found:${line}" "${shown_path}:${n}")
          set(found TRUE)
        endif()
        if(NOT why STREQUAL "")
          string(REPLACE ";" ")/LAB(" shown_holes "${holes}")
          list(APPEND leaks "${shown_path}:${n}: LAB(${shown_holes}): '${line}', ${why}")
        endif()
        math(EXPR offset "${at} + ${length}")
        string(SUBSTRING "${text}" ${offset} -1 rest)
      endwhile()
    endforeach()
  endforeach()

  # A region every line of whose answer is in the handout.
  get_property(count GLOBAL PROPERTY lab_region_count)
  set(n 0)
  while(n LESS count)
    get_property(lines GLOBAL PROPERTY lab_region_${n}_answer)
    set(all_found FALSE)
    if(lines)
      set(all_found TRUE)
      set(places "")
      foreach(line IN LISTS lines)
        get_property(found GLOBAL PROPERTY "lab_found:${line}")
        if(NOT found)
          set(all_found FALSE)
          break()
        endif()
        string(APPEND places "\n    '${line}' at ${found}")
      endforeach()
    endif()
    if(all_found)
      get_property(hole GLOBAL PROPERTY lab_region_${n}_hole)
      get_property(where GLOBAL PROPERTY lab_region_${n}_where)
      list(APPEND leaks "${where}: LAB(${hole}): every line of its answer is elsewhere:${places}")
    endif()
    math(EXPR n "${n} + 1")
  endwhile()

  if(leaks)
    list(SORT leaks COMPARE NATURAL)
    list(JOIN leaks "\n  " leaks)
    lab_unescape(leaks)
    message(FATAL_ERROR "the handout of ${CHAPTER} gives answers away: it holds lines "
                        "of a hole's answer outside the hole (stub the code that "
                        "repeats them as part of the hole, or leave the quote out; "
                        "cmake/handout.cmake says which lines count):\n  ${leaks}")
  endif()
endfunction()

# Copies the folder chapters/<dir> to the handout, stubbing the holes named
# in `stubbed` and filling the others. Sets `found` to every hole seen.
function(lab_copy_chapter dir stubbed)
  set(found)
  file(GLOB_RECURSE files RELATIVE ${ROOT}/chapters/${dir} ${ROOT}/chapters/${dir}/*)
  foreach(file IN LISTS files)
    set(from ${ROOT}/chapters/${dir}/${file})
    set(to ${OUT}/chapters/${dir}/${file})
    if(file MATCHES "\\.[ch]$")
      file(READ ${from} text)
      lab_holes(chapters/${dir}/${file} text "${stubbed}" text)
      list(APPEND found ${lab_found_holes})
      lab_write(${to} text)
    else()
      lab_copy(${from} ${to})
    endif()
  endforeach()
  set(found ${found} PARENT_SCOPE)
endfunction()

# ---- edits: the solutions of exercises that add code, and wrong answers ----
#
# A solution or wrong answer is a .cmake file of edits to the handout's
# chapter, each one of:
#
#   lab_edit(<file> REPLACE <text> WITH <text>)   the text must be there once
#   lab_edit(<file> APPEND <file of the lab>)     add a file's text at the end
#
# <file> is relative to the handout's folder (chapters/02_custom_loop/src/
# loop.c, docs/02_custom_loop.md). An edit whose text is no longer there
# stops the generator, naming it: the chapter changed, and the solution must
# follow.
function(lab_edit file mode what)
  set(path ${OUT}/${file})
  lab_read(${path} text)
  if(mode STREQUAL "APPEND")
    file(READ ${edit_dir}/${what} more)
    string(APPEND text "${more}")
  elseif(mode STREQUAL "REPLACE" AND ARGC EQUAL 5 AND ARGV3 STREQUAL "WITH")
    string(FIND "${text}" "${what}" first)
    string(FIND "${text}" "${what}" last REVERSE)
    if(first EQUAL -1)
      message(FATAL_ERROR "${edit_file}: the text to replace is not in ${file} any more; "
                          "update the edit to the chapter:\n${what}")
    endif()
    if(NOT first EQUAL last)
      message(FATAL_ERROR "${edit_file}: the text to replace is in ${file} more than "
                          "once; make it longer:\n${what}")
    endif()
    string(REPLACE "${what}" "${ARGV4}" text "${text}")
  else()
    message(FATAL_ERROR "${edit_file}: usage: lab_edit(<file> REPLACE <text> WITH <text>) "
                        "or lab_edit(<file> APPEND <file>)")
  endif()
  lab_write(${path} text)
endfunction()

function(lab_apply edit_file)
  get_filename_component(edit_dir ${edit_file} DIRECTORY)
  include(${edit_file})
endfunction()

# ---- the tutorial -------------------------------------------------------------
#
# A tutorial quotes code, and some of it is the answer to an exercise (chapter
# 01's quotes taal_send). In the students' handout every quoted block that
# gives an answer away, by lab_check_no_answer's rules (a line of it no code
# of the handout has, or two lines of it in a row), is replaced by a note
# naming its hole; prose is kept. The diff from the previous chapter shows
# every answer, so it is not in the handout and links to it say why.
function(lab_tutorial from to)
  file(READ ${from} text)
  if(NOT VARIANT STREQUAL "stub")
    lab_write(${to} text)
    return()
  endif()
  string(REGEX REPLACE "\\[([^]\n]*)\\]\\(diffs/[^)\n]*\\)"
         "\\1 (in the book, not in this handout: it shows the answers)" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  lab_split("${text}" raw)
  # A quote is its marker, blank lines, and a fenced block: kept whole, or
  # replaced whole by the note.
  set(result "")
  set(state text) # text, code (an ordinary block: a marker in it is an
                  # example), marked (a quote's marker read), quote (in it)
  foreach(original IN LISTS raw)
    string(STRIP "${original}" line)
    if(state STREQUAL "marked")
      string(APPEND quote "${original}\n")
      if(NOT line STREQUAL "")
        set(state quote) # its opening fence
        set(block "")
      endif()
      continue()
    elseif(state STREQUAL "quote")
      string(APPEND quote "${original}\n")
      if(NOT line MATCHES "^(```|~~~)")
        if(path MATCHES "\\.diff$")
          string(REGEX REPLACE "^[-+ ]" "" original "${original}")
        endif()
        string(APPEND block "${original}\n")
        continue()
      endif()
      set(state text)
      # The holes whose answer the block gives away, by the check's rules.
      lab_normalise(C block block)
      string(REPLACE "\n" ";" block "${block}")
      lab_block_leaks(block holes)
      if(holes)
        string(REPLACE ";" ")`, `LAB(" holes "${holes}")
        string(APPEND result
               "> **Not in this handout:** the code quoted here, from `${path}`, is an\n"
               "> answer of this lab (`LAB(${holes})`). Write it yourself, from the prose\n"
               "> around this note and the contract in the header; `cmake -P grade.cmake`\n"
               "> says when it works.\n")
      else()
        string(APPEND result "${quote}")
      endif()
      continue()
    endif()
    if(line MATCHES "^(```|~~~)")
      if(state STREQUAL "code")
        set(state text)
      else()
        set(state code)
      endif()
    elseif(state STREQUAL "text" AND line MATCHES "^<!-- check: quote ([^ ]+) -->$")
      set(path ${CMAKE_MATCH_1})
      set(quote "${original}\n")
      set(state marked)
      continue()
    endif()
    string(APPEND result "${original}\n")
  endforeach()
  if(state MATCHES "^(marked|quote)$") # a quote the tutorial does not close
    string(APPEND result "${quote}")
  endif()
  lab_unescape(result)
  lab_write(${to} result)
endfunction()

# ---- the README -------------------------------------------------------------

function(lab_readme to)
  string(REGEX REPLACE "^([0-9]+).*" "ch\\1" id ${CHAPTER})
  string(REGEX REPLACE "^([0-9]+).*" "\\1" number ${CHAPTER})
  file(STRINGS ${ROOT}/docs/${CHAPTER}.md title LIMIT_COUNT 1 REGEX "^# ")
  string(REGEX REPLACE "^# +(Chapter [0-9]+: *)?" "" title "${title}")
  set(exercises "")
  set(n 0)
  foreach(exercise IN LISTS LAB_EXERCISES)
    math(EXPR n "${n} + 1")
    set(name "${LAB_${exercise}_TITLE}")
    string(SUBSTRING "${name}" 0 1 first)
    string(TOUPPER "${first}" first)
    string(SUBSTRING "${name}" 1 -1 name)
    string(APPEND exercises "${n}. **${first}${name}.** ${LAB_${exercise}_TASK}\n")
    if(LAB_${exercise}_HOLE)
      set(where)
      get_property(files GLOBAL PROPERTY lab_files_of_${LAB_${exercise}_HOLE})
      list(REMOVE_DUPLICATES files)
      foreach(file IN LISTS files)
        list(APPEND where "`${file}`")
      endforeach()
      string(REPLACE ";" ", " where "${where}")
      string(APPEND exercises "   Fill the holes marked `LAB(${LAB_${exercise}_HOLE})` in ${where}.\n")
    endif()
    set(tests)
    foreach(file IN LISTS LAB_${exercise}_TESTS LAB_${exercise}_OUTPUTS)
      list(APPEND tests "`labs/${CHAPTER}/${file}`")
    endforeach()
    string(REPLACE ";" ", " tests "${tests}")
    string(APPEND exercises "   Its tests: ${tests} (`${id}.exercise${n}.*` in `ctest -N`)")
    if(LAB_${exercise}_UNIT_TESTS)
      string(REPLACE ";" "`, `" unit "${LAB_${exercise}_UNIT_TESTS}")
      string(APPEND exercises ", and the chapter's own `${unit}`")
    endif()
    string(APPEND exercises ".\n")
  endforeach()
  set(earlier "")
  foreach(dir IN LISTS earlier_chapters)
    string(APPEND earlier " `chapters/${dir}`")
  endforeach()
  if(earlier STREQUAL "")
    set(earlier " (none: this is the first chapter)")
  endif()
  file(READ ${ROOT}/labs/handout/README.md.in text)
  string(CONFIGURE "${text}" text @ONLY)
  lab_write(${to} text)
endfunction()

# ---- the handout ------------------------------------------------------------------

if(VARIANT STREQUAL "stub")
  set(stubbed ${LAB_HOLES})
elseif(VARIANT MATCHES "^(chapter|reference)$" OR EXISTS ${LAB}/wrong/${VARIANT}.cmake)
  set(stubbed)
else()
  message(FATAL_ERROR "VARIANT=${VARIANT}: not stub, chapter, reference, "
                      "or a wrong answer in ${LAB}/wrong/")
endif()

# The chapters before this one, in reading order.
file(GLOB dirs RELATIVE ${ROOT}/chapters ${ROOT}/chapters/[0-9]*)
list(SORT dirs)
set(earlier_chapters)
foreach(dir IN LISTS dirs)
  if(dir STREQUAL CHAPTER)
    break()
  endif()
  list(APPEND earlier_chapters ${dir})
endforeach()

foreach(dir IN LISTS earlier_chapters)
  lab_copy_chapter(${dir} "")
  # An earlier chapter is copied whole, for its tests: it must not hold the
  # answer to a hole of this lab.
  foreach(hole IN LISTS stubbed)
    if(hole IN_LIST found)
      message(FATAL_ERROR "LAB(${hole}) is also in chapters/${dir}, which the handout "
                          "holds whole: its answer would be there")
    endif()
  endforeach()
endforeach()
lab_copy_chapter(${CHAPTER} "${stubbed}")
# The exercises' tests, the whole folder; a test file may have a hole of
# its own.
file(GLOB_RECURSE files RELATIVE ${LAB} ${LAB}/tests/*)
foreach(file IN LISTS files)
  if(file MATCHES "\\.[ch]$")
    file(READ ${LAB}/${file} text)
    lab_holes(labs/${CHAPTER}/${file} text "${stubbed}" text)
    list(APPEND found ${lab_found_holes})
    lab_write(${OUT}/labs/${CHAPTER}/${file} text)
  else()
    lab_copy(${LAB}/${file} ${OUT}/labs/${CHAPTER}/${file})
  endif()
endforeach()
foreach(hole IN LISTS LAB_HOLES)
  if(NOT hole IN_LIST found)
    message(FATAL_ERROR "labs/${CHAPTER}/lab.cmake stubs LAB(${hole}), but neither "
                        "chapters/${CHAPTER} nor the lab's tests have such a hole")
  endif()
endforeach()

lab_copy(${ROOT}/tests/include/taal_check.h ${OUT}/tests/include/taal_check.h)
lab_copy(${ROOT}/tests/harness/doccheck.c ${OUT}/tests/harness/doccheck.c)
lab_copy(${LAB}/lab.cmake ${OUT}/labs/${CHAPTER}/lab.cmake)

# What the students' handout must not give away, once the code is there.
if(VARIANT STREQUAL "stub")
  lab_index_answers()
endif()

# The tutorial, and the seeds and timelines it links to, quotes or shows.
lab_tutorial(${ROOT}/docs/${CHAPTER}.md ${OUT}/docs/${CHAPTER}.md)
file(READ ${ROOT}/docs/${CHAPTER}.md tutorial)
string(REGEX MATCHALL "(seeds|timelines/[A-Za-z0-9_]+)/[A-Za-z0-9_.-]+" seeds "${tutorial}")
list(REMOVE_DUPLICATES seeds)
foreach(seed IN LISTS seeds)
  if(EXISTS ${ROOT}/docs/${seed})
    lab_copy(${ROOT}/docs/${seed} ${OUT}/docs/${seed})
  endif()
endforeach()

# The build, the grade command, which chapter this is, and the README.
lab_copy(${ROOT}/labs/handout/CMakeLists.txt ${OUT}/CMakeLists.txt)
lab_copy(${ROOT}/cmake/grade.cmake ${OUT}/grade.cmake)
string(REPLACE ";" " " earlier "${earlier_chapters}")
string(CONCAT info
       "# Which chapter this handout is: written by cmake/handout.cmake.\n"
       "set(TAAL_LAB_CHAPTER ${CHAPTER}) # the chapter to complete\n"
       "set(TAAL_LAB_EARLIER ${earlier}) # the chapters before it, for their tests\n"
       "set(TAAL_LAB_VARIANT ${VARIANT}) # stub: the holes to fill (see cmake/handout.cmake)\n"
       "include(\${CMAKE_CURRENT_LIST_DIR}/labs/${CHAPTER}/lab.cmake)\n")
lab_write(${OUT}/lab.cmake info)
lab_readme(${OUT}/README.md)
if(VARIANT STREQUAL "stub")
  # For the check's own tests (labs/CMakeLists.txt): -DPLANT_FILE=<file of
  # the handout> -DPLANT_FROM=<a file> adds that file's text at the end of
  # the handout's, as a leak would, and the check must stop.
  if(DEFINED PLANT_FILE)
    lab_read(${OUT}/${PLANT_FILE} text)
    file(READ ${PLANT_FROM} plant)
    string(APPEND text "\n${plant}")
    lab_write(${OUT}/${PLANT_FILE} text)
    set_property(GLOBAL PROPERTY "lab_norm:${OUT}/${PLANT_FILE}" "") # to read again
  endif()
  lab_check_no_answer()
endif()

# The answers: each exercise's solution, then the wrong answer if asked for.
if(NOT VARIANT MATCHES "^(stub|chapter)$")
  foreach(exercise IN LISTS LAB_EXERCISES)
    if(LAB_${exercise}_SOLUTION)
      lab_apply(${LAB}/${LAB_${exercise}_SOLUTION})
    endif()
  endforeach()
  if(NOT VARIANT STREQUAL "reference")
    lab_apply(${LAB}/wrong/${VARIANT}.cmake)
  endif()
endif()

lab_flush()
message(STATUS "lab handout of ${CHAPTER} (${VARIANT}) in ${OUT}")
