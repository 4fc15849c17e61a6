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

# Lines of the stubbed holes' code, and every line of the handout outside
# them: a tutorial block that quotes two lines found only in a hole shows an
# answer (see lab_tutorial).
set_property(GLOBAL PROPERTY lab_hole_lines)
set_property(GLOBAL PROPERTY lab_hole_names)
set_property(GLOBAL PROPERTY lab_other_lines)

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
# a list of its lines, lab_lines() into a list of its lines stripped of
# blanks; lab_unescape() puts them back.
string(ASCII 1 SEMI)
string(ASCII 2 OPEN)
string(ASCII 3 CLOSE)
string(ASCII 4 BACKSLASH)
string(ASCII 5 LINE_END) # ends a line in a text that string(FIND) searches
function(lab_split text out)
  string(REPLACE "\\" "${BACKSLASH}" text "${text}")
  string(REPLACE ";" "${SEMI}" text "${text}")
  string(REPLACE "[" "${OPEN}" text "${text}")
  string(REPLACE "]" "${CLOSE}" text "${text}")
  string(REPLACE "\n" ";" list "${text}")
  set(${out} "${list}" PARENT_SCOPE)
endfunction()
function(lab_lines text out)
  lab_split("${text}" list)
  list(TRANSFORM list STRIP)
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
      # This hole's own lines, named by it (a note in the tutorial names
      # the hole it replaces, not every hole of the file).
      lab_lines("${code}" own_lines)
      set(block "")
      foreach(own IN LISTS own_lines)
        string(LENGTH "${own}" length)
        if(length GREATER 7)
          set_property(GLOBAL APPEND PROPERTY lab_hole_lines "${own}")
          set_property(GLOBAL APPEND PROPERTY lab_hole_names "${hole}")
          if(NOT own MATCHES "^(/\\*|//|\\*/|\\*$|\\* )") # not a comment
            string(APPEND block "${own}${LINE_END}")
          endif()
        endif()
      endforeach()
      set_property(GLOBAL APPEND PROPERTY lab_hole_blocks "${block}")
      set_property(GLOBAL APPEND PROPERTY lab_hole_block_names "${hole}")
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

  # Remember every line outside the holes (the holes' own lines are
  # remembered above), and each file's text, for lab_check_no_answer().
  lab_lines("${done}" other_lines)
  set_property(GLOBAL APPEND PROPERTY lab_other_lines "${other_lines}")
  lab_remember_text(${name} other_lines)
endfunction()

# The text of a file of the handout, as its lines stripped of blanks, each
# between two ASCII 5s: a line is found whole with string(FIND).
function(lab_remember_text name lines_var)
  string(REPLACE ";" "${LINE_END}${LINE_END}" text "${${lines_var}}")
  set_property(GLOBAL APPEND PROPERTY lab_text_files ${name})
  set_property(GLOBAL PROPERTY "lab_text:${name}" "${LINE_END}${text}${LINE_END}")
endfunction()

# No answer in the students' handout: no two lines that follow each other
# in a stubbed hole (of more than 7 characters, blanks stripped, comments
# left out) may follow each other anywhere in the handout's text (the
# chapter's files with their holes stubbed, the lab's tests, the tutorial as
# the handout has it), unless they do in an earlier chapter too (the
# handout holds them whole anyway). Such a pair is an answer given away: a
# function that repeats the hole's code with a line changed, a tutorial
# quote the filter let through. One line alone is not: `it->busy = false;`
# is everywhere. Fails naming the lines, the hole and where.
function(lab_check_no_answer)
  get_property(blocks GLOBAL PROPERTY lab_hole_blocks)
  get_property(block_names GLOBAL PROPERTY lab_hole_block_names)
  get_property(files GLOBAL PROPERTY lab_text_files)
  set(earlier "")
  set(here)
  foreach(file IN LISTS files)
    get_property(text GLOBAL PROPERTY "lab_text:${file}")
    if(file MATCHES "^chapters/([^/]+)/" AND NOT CMAKE_MATCH_1 STREQUAL CHAPTER)
      string(APPEND earlier "${text}")
    else()
      list(APPEND here ${file})
    endif()
  endforeach()
  set(leaks "")
  set(n 0)
  foreach(block IN LISTS blocks)
    list(GET block_names ${n} hole)
    math(EXPR n "${n} + 1")
    string(REPLACE "${LINE_END}" ";" lines "${block}")
    list(LENGTH lines count)
    math(EXPR last "${count} - 2")
    if(last LESS 0)
      continue()
    endif()
    foreach(i RANGE 0 ${last})
      list(GET lines ${i} first)
      math(EXPR k "${i} + 1")
      list(GET lines ${k} second)
      if(first STREQUAL "" OR second STREQUAL "")
        continue()
      endif()
      set(pair "${LINE_END}${first}${LINE_END}${LINE_END}${second}${LINE_END}")
      string(FIND "${earlier}" "${pair}" at)
      if(NOT at EQUAL -1)
        continue()
      endif()
      set(where)
      foreach(file IN LISTS here)
        get_property(text GLOBAL PROPERTY "lab_text:${file}")
        string(FIND "${text}" "${pair}" at)
        if(NOT at EQUAL -1)
          list(APPEND where ${file})
        endif()
      endforeach()
      if(where)
        string(REPLACE ";" ", " where "${where}")
        set(shown "${first} / ${second}")
        lab_unescape(shown)
        string(APPEND leaks "\n  LAB(${hole}): '${shown}' is in ${where}")
      endif()
    endforeach()
  endforeach()
  # A lab whose handout was found clean says so (LAB_NO_ANSWER_GIVEN in its
  # lab.cmake), and from then on an answer given away stops the generator;
  # for the others it is a warning, until they are made clean.
  set(level WARNING)
  if(LAB_NO_ANSWER_GIVEN)
    set(level FATAL_ERROR)
  endif()
  if(NOT leaks STREQUAL "")
    message(${level} "the handout of ${CHAPTER} gives answers away: two lines of a "
                     "hole's answer, one after the other, are in it outside the hole "
                     "(mark the code that repeats them as the hole's too, or leave "
                     "the quote out):${leaks}")
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
# shows a line of a stubbed hole is replaced by a note saying so; prose is
# kept. The diff from the previous chapter shows every answer, so it is not
# in the handout and links to it say why.
function(lab_tutorial from to)
  file(READ ${from} text)
  if(NOT VARIANT STREQUAL "stub")
    lab_write(${to} text)
    return()
  endif()
  string(REGEX REPLACE "\\[([^]\n]*)\\]\\(diffs/[^)\n]*\\)"
         "\\1 (in the book, not in this handout: it shows the answers)" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  lab_lines("${text}" md) # to read
  lab_split("${text}" raw) # to write
  list(LENGTH md count)
  # The answers: lines of a hole found nowhere else in the handout.
  get_property(hole_lines GLOBAL PROPERTY lab_hole_lines)
  get_property(hole_names GLOBAL PROPERTY lab_hole_names)
  get_property(other_lines GLOBAL PROPERTY lab_other_lines)
  set(answer_lines)
  set(answer_holes)
  set(n 0)
  foreach(line IN LISTS hole_lines)
    if(NOT line IN_LIST other_lines AND NOT line IN_LIST answer_lines)
      list(GET hole_names ${n} holes)
      list(APPEND answer_lines "${line}")
      list(APPEND answer_holes "${holes}")
    endif()
    math(EXPR n "${n} + 1")
  endforeach()
  set(result "")
  set(in_code FALSE) # inside an ordinary code block, a marker is an example
  set(i 0)
  while(i LESS count)
    list(GET md ${i} line)
    list(GET raw ${i} original)
    if(line MATCHES "^(```|~~~)")
      if(in_code)
        set(in_code FALSE)
      else()
        set(in_code TRUE)
      endif()
    endif()
    if(in_code OR NOT line MATCHES "^<!-- check: quote ([^ ]+) -->$")
      string(APPEND result "${original}\n")
      math(EXPR i "${i} + 1")
      continue()
    endif()
    set(path ${CMAKE_MATCH_1})
    # The block: the fence after the marker, to its closing fence.
    math(EXPR j "${i} + 1")
    while(j LESS count)
      list(GET md ${j} line)
      if(NOT line STREQUAL "")
        break()
      endif()
      math(EXPR j "${j} + 1")
    endwhile()
    math(EXPR k "${j} + 1")
    set(holes)
    set(shown 0)
    while(k LESS count)
      list(GET md ${k} line)
      if(line MATCHES "^(```|~~~)")
        break()
      endif()
      if(path MATCHES "\\.diff$")
        string(REGEX REPLACE "^[-+ ]" "" line "${line}")
        string(STRIP "${line}" line)
      endif()
      list(FIND answer_lines "${line}" at)
      if(NOT at EQUAL -1)
        list(GET answer_holes ${at} hole)
        list(APPEND holes ${hole})
        math(EXPR shown "${shown} + 1")
      endif()
      math(EXPR k "${k} + 1")
    endwhile()
    if(shown GREATER 1) # two lines of an answer: it shows the answer
      list(REMOVE_DUPLICATES holes)
      string(REPLACE ";" ")`, `LAB(" holes "${holes}")
      string(APPEND result
             "> **Not in this handout:** the code quoted here, from `${path}`, is an\n"
             "> answer of this lab (`LAB(${holes})`). Write it yourself, from the prose\n"
             "> around this note and the contract in the header; `cmake -P grade.cmake`\n"
             "> says when it works.\n")
    else()
      foreach(n RANGE ${i} ${k})
        if(n LESS count)
          list(GET raw ${n} original)
          string(APPEND result "${original}\n")
        endif()
      endforeach()
    endif()
    math(EXPR i "${k} + 1")
  endwhile()
  lab_lines("${result}" result_lines)
  lab_remember_text(docs/${CHAPTER}.md result_lines)
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

if(VARIANT STREQUAL "stub")
  lab_check_no_answer()
endif()

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
