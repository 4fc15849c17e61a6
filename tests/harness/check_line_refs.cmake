# check_line_refs.cmake -- the graders' output that a page quotes names
# tutorial lines ("first failure: docs/07_io.md:470: output of slow_client",
# "| docs/07_io.md:475: expected '...' on line 4, got ..."). Those numbers
# move whenever a tutorial changes above them; this checks that each still
# points where it says.
#
#   cmake -DROOT=<repository> -DPAGE=<page.md> -P check_line_refs.cmake
#
# Every "FILE:N: output of P" must have P's output marker on line N of
# FILE, and every "FILE:N: expected 'X' on line K" the line X, whole, on
# line N.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ROOT OR NOT DEFINED PAGE)
  message(FATAL_ERROR "usage: cmake -DROOT=<repository> -DPAGE=<page.md> -P check_line_refs.cmake")
endif()

# Does `needle` (a literal) occur in `text` starting on line `line`
# (counted from 1)? Each occurrence's line is the number of newlines
# before it, plus one.
function(found_on_line text needle line out)
  set(${out} FALSE PARENT_SCOPE)
  string(LENGTH "${needle}" length)
  set(rest "${text}")
  set(lines_before 0)
  string(FIND "${rest}" "${needle}" at)
  while(NOT at EQUAL -1)
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines n)
    math(EXPR lines_before "${lines_before} + ${n}")
    math(EXPR here "${lines_before} + 1")
    if(here EQUAL line)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
    math(EXPR next "${at} + ${length}")
    string(SUBSTRING "${rest}" ${at} ${length} skipped)
    string(REGEX MATCHALL "\n" newlines "${skipped}")
    list(LENGTH newlines n)
    math(EXPR lines_before "${lines_before} + ${n}")
    string(SUBSTRING "${rest}" ${next} -1 rest)
    string(FIND "${rest}" "${needle}" at)
  endwhile()
endfunction()

file(STRINGS "${PAGE}" refs REGEX "docs/[A-Za-z0-9_]+\\.md:[0-9]+: (output of|expected ')")
set(checked 0)
set(wrong "")
foreach(ref IN LISTS refs)
  if(ref MATCHES "(docs/[A-Za-z0-9_]+\\.md):([0-9]+): output of ([A-Za-z0-9_]+)")
    set(needle "<!-- check: output of ${CMAKE_MATCH_3}")
  elseif(ref MATCHES "(docs/[A-Za-z0-9_]+\\.md):([0-9]+): expected '(.*)' on line [0-9]+, got")
    set(needle "\n${CMAKE_MATCH_3}\n")
  else()
    continue()
  endif()
  set(file "${CMAKE_MATCH_1}")
  set(line "${CMAKE_MATCH_2}")
  if(NOT EXISTS "${ROOT}/${file}")
    string(APPEND wrong "  ${file}:${line}: there is no ${file}\n")
    continue()
  endif()
  file(READ "${ROOT}/${file}" whole)
  if(needle MATCHES "^\n")
    # The expected line, whole: its newline before it is on the line above.
    math(EXPR line_of_newline "${line} - 1")
    found_on_line("${whole}" "${needle}" ${line_of_newline} ok)
  else()
    found_on_line("${whole}" "${needle}" ${line} ok)
  endif()
  if(NOT ok)
    string(STRIP "${needle}" what)
    string(APPEND wrong "  ${file}:${line} is not where '${what}' is\n")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(NOT wrong STREQUAL "")
  message(FATAL_ERROR "${PAGE} quotes tutorial lines that have moved:\n${wrong}")
endif()
message("${checked} line references in ${PAGE} point where they say")
