# check_hindi.cmake -- keep the Hindi companion (docs/hi/, issue 23) true.
#
#   cmake -DROOT=<repo> [-DHI=<folder>] [-DCHECK=follows|terms|markup|all]
#         [-DREFRESH=ON] [-DGLOSSARY=<file>] [-DFALLBACK_GLOSSARY=<file>]
#         -P check_hindi.cmake
#
# HI is the folder of Hindi pages (default ROOT/docs/hi); a missing folder
# or page is not an error: the pages arrive one by one.
#
# follows: every marker
#     <!-- follows: docs/X.md "## English heading" sha: H -->
# on a Hindi page names the English section the Hindi one follows. The
# section is ROOT/docs/X.md from that heading line (found exactly, outside
# fenced code) up to the next heading of the same or a higher level (as many
# #s or fewer), outside fenced code, or the end of the file. H must be the
# first 12 hex digits of the SHA-256 of the section's text: when the English
# changes, the check fails naming the Hindi file:line and the English section
# to revisit. "pending" fails too. On a chapter page (NN_name.md) every ##
# or ### heading must be followed on its next line by such a marker.
# With -DREFRESH=ON every H (pending or stale) is rewritten to the current
# hash instead: run it once the Hindi says what the English says
# (`cmake --build build --target hindi_refresh`).
#
# terms: the glossary (GLOSSARY, default HI/glossary.md) has table rows
#     | term | gloss | definition | chapter | banned variants |
# whose last cell lists the variants a page must not use, comma-separated
# (or "—"). Each Hindi page but the glossary is searched for each variant as
# a whole word (letters, Devanagari signs included, on neither side), so an
# inflected form ("कार्यों") is a variant of its own. Text that quotes
# rather than writes is left out: fenced code blocks, blockquotes ("> ", a
# seed's own Hindi) and `code spans` -- name a seed's wrong word in one.
cmake_policy(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<repo> [-DHI=<folder>] [-DCHECK=follows|terms|markup|all] "
                      "[-DREFRESH=ON] [-DGLOSSARY=<file>] -P check_hindi.cmake")
endif()
if(NOT DEFINED HI)
  set(HI ${ROOT}/docs/hi)
endif()
if(NOT DEFINED CHECK)
  set(CHECK all)
endif()
if(NOT DEFINED GLOSSARY)
  set(GLOSSARY ${HI}/glossary.md)
endif()
# Until the real glossary arrives, the tests use a fixture one.
if(NOT EXISTS "${GLOSSARY}" AND DEFINED FALLBACK_GLOSSARY)
  set(GLOSSARY ${FALLBACK_GLOSSARY})
endif()

# A page is read as a CMake list of its lines. ";" and "[" "]" mean
# something in a list, and a backslash at a line's end would escape the
# ";" that ends the line (joining it to the next: a C macro's lines), so
# they stand in as control characters until a line is written back or
# hashed.
string(ASCII 1 semicolon)
string(ASCII 2 lbracket)
string(ASCII 3 rbracket)
string(ASCII 4 backslash)
function(read_lines file out)
  file(READ "${file}" text)
  string(REPLACE "\\" "${backslash}" text "${text}")
  string(REPLACE ";" "${semicolon}" text "${text}")
  string(REPLACE "[" "${lbracket}" text "${text}")
  string(REPLACE "]" "${rbracket}" text "${text}")
  # The last line's newline ends it; it does not start another.
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
function(decode var)
  set(text "${${var}}")
  string(REPLACE "${semicolon}" ";" text "${text}")
  string(REPLACE "${lbracket}" "[" text "${text}")
  string(REPLACE "${rbracket}" "]" text "${text}")
  string(REPLACE "${backslash}" "\\" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()
function(shown file out)
  file(RELATIVE_PATH rel "${ROOT}" "${file}")
  if(rel MATCHES "^\\.\\./")
    set(rel "${file}")
  endif()
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()

# section_hash(<file> <heading> <out>): the 12-digit hash of the section,
# or NOTFOUND.
function(section_hash file heading out)
  set(${out} NOTFOUND PARENT_SCOPE)
  if(NOT EXISTS "${file}")
    return()
  endif()
  read_lines("${file}" lines)
  string(REGEX MATCH "^#+" level "${heading}")
  string(LENGTH "${level}" level)
  set(fenced OFF)
  set(inside OFF)
  set(section "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^ ? ? ?(```|~~~)")
      if(fenced)
        set(fenced OFF)
      else()
        set(fenced ON)
      endif()
    elseif(NOT fenced AND line MATCHES "^(#+) ")
      string(LENGTH "${CMAKE_MATCH_1}" this)
      if(inside AND this LESS_EQUAL level)
        break()
      endif()
      if(NOT inside AND line STREQUAL heading)
        set(inside ON)
      endif()
    endif()
    if(inside)
      string(APPEND section "${line}\n")
    endif()
  endforeach()
  if(inside)
    decode(section)
    string(SHA256 sha "${section}")
    string(SUBSTRING "${sha}" 0 12 sha)
    set(${out} ${sha} PARENT_SCOPE)
  endif()
endfunction()

file(GLOB pages "${HI}/*.md")
set(problems "")
set(nproblems 0)
macro(problem)
  string(APPEND problems ${ARGV} "\n")
  math(EXPR nproblems "${nproblems} + 1")
endmacro()

# ---- follows ------------------------------------------------------------------
set(marker_regex "^<!-- follows: ([^ ]+\\.md) \"(#+ .*)\" sha: ([^ ]*) -->$")
if(CHECK STREQUAL "follows" OR CHECK STREQUAL "all")
  set(markers 0)
  foreach(page IN LISTS pages)
    shown("${page}" name)
    get_filename_component(base "${page}" NAME)
    set(chapter_page OFF)
    if(base MATCHES "^[0-9][0-9]_")
      set(chapter_page ON)
    endif()
    read_lines("${page}" lines)
    set(out "")
    set(changed OFF)
    set(n 0)
    set(fenced OFF)
    set(after_heading "")
    foreach(line IN LISTS lines)
      math(EXPR n "${n} + 1")
      if(after_heading AND NOT line MATCHES "^<!-- follows: ")
        problem("${name}:${after_heading}: this heading is not followed by a line "
                "'<!-- follows: docs/NN_name.md \"## English heading\" sha: pending -->'")
      endif()
      set(after_heading "")
      if(line MATCHES "^ ? ? ?(```|~~~)")
        if(fenced)
          set(fenced OFF)
        else()
          set(fenced ON)
        endif()
      elseif(NOT fenced AND chapter_page AND line MATCHES "^###? ")
        set(after_heading ${n})
      elseif(NOT fenced AND line MATCHES "^<!-- follows: ")
        math(EXPR markers "${markers} + 1")
        if(NOT line MATCHES "${marker_regex}")
          problem("${name}:${n}: a follows marker must read "
                  "'<!-- follows: docs/NN_name.md \"## English heading\" sha: H -->'")
        else()
          set(english "${CMAKE_MATCH_1}")
          set(heading "${CMAKE_MATCH_2}")
          set(sha "${CMAKE_MATCH_3}")
          set(shown_heading "${heading}")
          decode(shown_heading)
          section_hash("${ROOT}/${english}" "${heading}" now)
          if(NOT now)
            if(NOT EXISTS "${ROOT}/${english}")
              problem("${name}:${n}: follows ${english}, which does not exist")
            else()
              problem("${name}:${n}: ${english} has no heading line '${shown_heading}' any "
                      "more: revisit this Hindi section against the English and name the "
                      "section it follows now")
            endif()
          elseif(REFRESH)
            if(NOT sha STREQUAL now)
              string(REPLACE "sha: ${sha} -->" "sha: ${now} -->" line "${line}")
              set(changed ON)
            endif()
          elseif(sha STREQUAL "pending")
            problem("${name}:${n}: the hash of '${shown_heading}' (${english}) is still "
                    "'pending': refresh it (cmake --build <build> --target hindi_refresh)")
          elseif(NOT sha STREQUAL now)
            problem("${name}:${n}: the English section '${shown_heading}' of ${english} has "
                    "changed since this Hindi section followed it (sha ${sha}, now ${now}): "
                    "revisit the Hindi, then refresh (cmake --build <build> --target "
                    "hindi_refresh)")
          endif()
        endif()
      endif()
      string(APPEND out "${line}\n")
    endforeach()
    if(after_heading)
      problem("${name}:${after_heading}: this heading is not followed by a follows marker")
    endif()
    if(changed)
      decode(out)
      file(WRITE "${page}" "${out}")
      message(STATUS "refreshed ${name}")
    endif()
  endforeach()
  if(NOT REFRESH)
    list(LENGTH pages npages)
    message(STATUS "follows: ${npages} Hindi pages, ${markers} markers")
  endif()
endif()

# ---- terms --------------------------------------------------------------------
if((CHECK STREQUAL "terms" OR CHECK STREQUAL "all") AND NOT REFRESH)
  set(banned "")
  if(EXISTS "${GLOSSARY}")
    read_lines("${GLOSSARY}" lines)
    foreach(line IN LISTS lines)
      # | term | gloss | definition | chapter | banned |: five cells.
      if(line MATCHES "^\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\| *$")
        set(cell "${CMAKE_MATCH_5}")
        if(CMAKE_MATCH_1 MATCHES "^ *:?-+:? *$") # the header's rule
          continue()
        endif()
        string(REPLACE "," ";" cell "${cell}")
        foreach(word IN LISTS cell)
          string(STRIP "${word}" word)
          if(NOT word STREQUAL "" AND NOT word MATCHES "^(—|-|–)$")
            list(APPEND banned "${word}")
          endif()
        endforeach()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES banned)
  endif()
  # The header row's last cell is a title, not a variant.
  list(FILTER banned EXCLUDE REGEX "^[A-Za-z ]+$")
  list(LENGTH banned nbanned)
  set(hits 0)
  foreach(page IN LISTS pages)
    if(page STREQUAL GLOSSARY)
      continue()
    endif()
    shown("${page}" name)
    read_lines("${page}" lines)
    # The page's own words, one line each, every run of what is not a
    # letter made one space, and a space at each end: a whole word w is
    # then " w " (a phrase too).
    set(text "")
    set(fenced OFF)
    foreach(line IN LISTS lines)
      if(line MATCHES "^ ? ? ?(```|~~~)")
        if(fenced)
          set(fenced OFF)
        else()
          set(fenced ON)
        endif()
        set(line "")
      elseif(fenced OR line MATCHES "^ *>")
        set(line "")
      endif()
      string(REGEX REPLACE "`[^`]*`" " " line "${line}")
      string(REGEX REPLACE "<!--.*-->" " " line "${line}")
      decode(line)
      string(REGEX REPLACE "[][ \t!-/:-@\\^_`{-~]+" " " line "${line}")
      foreach(mark "।" "॥" "“" "”" "‘" "’" "—" "–" "…" "«" "»")
        string(REPLACE "${mark}" " " line "${line}")
      endforeach()
      string(REGEX REPLACE "  +" " " line "${line}")
      string(APPEND text " ${line} \n")
    endforeach()
    foreach(word IN LISTS banned)
      set(rest "${text}")
      set(offset_lines 0)
      while(TRUE)
        string(FIND "${rest}" " ${word} " at)
        if(at EQUAL -1)
          break()
        endif()
        string(SUBSTRING "${rest}" 0 ${at} before)
        string(REGEX MATCHALL "\n" newlines "${before}")
        list(LENGTH newlines k)
        math(EXPR offset_lines "${offset_lines} + ${k}")
        math(EXPR line_no "${offset_lines} + 1")
        problem("${name}:${line_no}: '${word}' is a banned variant in the glossary "
                "(${GLOSSARY}): use the glossary's term")
        math(EXPR hits "${hits} + 1")
        # On from the end of that line.
        string(SUBSTRING "${rest}" ${at} -1 rest)
        string(FIND "${rest}" "\n" eol)
        if(eol EQUAL -1)
          break()
        endif()
        math(EXPR eol "${eol} + 1")
        string(SUBSTRING "${rest}" ${eol} -1 rest)
        math(EXPR offset_lines "${offset_lines} + 1")
      endwhile()
    endforeach()
  endforeach()
  message(STATUS "terms: ${nbanned} banned variants from ${GLOSSARY}")
endif()

# ---- markup --------------------------------------------------------------------
# What Doxygen 1.9 renders wrong without a warning, on every Hindi page:
# - a paragraph with an odd number of double quotes (one in a `code span`
#   counts: Doxygen sees it first; \" does not count): the
#   lone one starts a verbatim run that swallows the rest of the paragraph,
#   and every paragraph after it up to the next heading, links and code
#   spans shown raw. Write “ ” (or &quot;) for a quote that is not closed.
# - a fenced code block without a check marker on the line above it: on a
#   Hindi page every block is a checked quote or output (issue 23).
# - a link or a `code span` in a heading (title included): shown raw.
# - emphasis closed right before the danda, *शब्द*। or **शब्द**।: shown
#   with its stars. Put the danda outside a space, or leave the stars out.
if((CHECK STREQUAL "markup" OR CHECK STREQUAL "all") AND NOT REFRESH)
  foreach(page IN LISTS pages)
    shown("${page}" name)
    read_lines("${page}" lines)
    set(n 0)
    set(fenced OFF)
    set(odd "")
    set(previous "")
    foreach(line IN LISTS lines)
      math(EXPR n "${n} + 1")
      set(before "${previous}")
      set(previous "${line}")
      if(line MATCHES "^ ? ? ?(```|~~~)")
        if(fenced)
          set(fenced OFF)
        else()
          set(fenced ON)
          if(NOT before MATCHES "^<!-- check: ")
            problem("${name}:${n}: a code block without a '<!-- check: quote PATH -->' or "
                    "'<!-- check: output of PROGRAM -->' line right above it: every block on "
                    "a Hindi page is checked (a seed's own Hindi goes in a '> ' blockquote)")
          endif()
        endif()
        continue()
      elseif(fenced)
        continue()
      endif()
      if(line MATCHES "^#+ ")
        if(line MATCHES "${rbracket}\\(")
          problem("${name}:${n}: a link in a heading is shown raw ('@ref ...') by Doxygen "
                  "1.9: put it on a line of its own (after the follows marker)")
        endif()
        if(line MATCHES "`")
          problem("${name}:${n}: a code span in a heading is shown as '<tt>...</tt>' by "
                  "Doxygen 1.9: leave the backticks out")
        endif()
      endif()
      if(line MATCHES "^[ >]*$" OR line MATCHES "^#+ ")
        if(odd)
          problem("${name}:${odd}: the paragraph from here has a lone double quote "
              "(an odd number, one in a code span too): Doxygen shows the text after it "
              "raw, to the next heading (write “ ” or &quot\\;)")
        endif()
        set(odd "")
        continue()
      endif()
      # A quote in a `code span` counts too: Doxygen reads the quote first.
      string(REGEX REPLACE "<!--.*-->" " " line "${line}")
      string(REPLACE "${backslash}\"" " " line "${line}")
      string(REGEX MATCHALL "\"" quotes "${line}")
      list(LENGTH quotes k)
      math(EXPR k "${k} % 2")
      if(k EQUAL 1)
        if(odd)
          set(odd "")
        else()
          set(odd ${n})
        endif()
      endif()
      string(REGEX REPLACE "`[^`]*`" " " line "${line}")
      if(line MATCHES "[*_]।")
        problem("${name}:${n}: emphasis closed right before '।' is shown with its stars "
                "by Doxygen: put a space before the danda")
      endif()
    endforeach()
    if(odd)
      problem("${name}:${odd}: the paragraph from here has a lone double quote "
              "(an odd number, one in a code span too): Doxygen shows the text after it "
              "raw, to the next heading (write “ ” or &quot\\;)")
    endif()
  endforeach()
endif()

if(nproblems GREATER 0)
  message("${problems}")
  message(FATAL_ERROR "${nproblems} problems in the Hindi pages (${HI})")
endif()
