# check_api_pages.cmake -- each chapter has an API reference of its own.
#
#   cmake -DHTML=<html dir> -DCHAPTERS=<01_awaitable;...> -P check_api_pages.cmake
#
# For each chapter: html/api/NN_name/ has a main page titled with the
# chapter and a page for taal_coro; no internal name (taal__*, TAAL__*) is
# listed as a member or linked; the chapter's tutorial links its names into
# its own reference and into no other chapter's; and chapter 01's taal_coro
# shows chapter 01's four fields, not a later chapter's (a merged reference
# has more), and chapter 01's taal_send links to chapter 01's.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED HTML OR NOT DEFINED CHAPTERS)
  message(FATAL_ERROR "usage: cmake -DHTML=<dir> -DCHAPTERS=<list> -P check_api_pages.cmake")
endif()
set(problems "")
foreach(dir IN LISTS CHAPTERS)
  set(api ${HTML}/api/${dir})
  if(NOT EXISTS ${api}/index.html OR NOT EXISTS ${api}/structtaal__coro.html)
    string(APPEND problems "api/${dir}: no index.html or structtaal__coro.html\n")
    continue()
  endif()
  file(READ ${api}/index.html index)
  string(SUBSTRING "${dir}" 0 2 number)
  if(NOT index MATCHES "<div id=\"projectname\">Chapter ${number}:")
    string(APPEND problems "api/${dir}/index.html: not titled 'Chapter ${number}: ...'\n")
  endif()
  file(READ ${HTML}/md_docs_${dir}.html tutorial)
  if(NOT tutorial MATCHES "<a class=\"el\" href=\"api/${dir}/[^\"]+\">[A-Za-z_]+</a>")
    string(APPEND problems "md_docs_${dir}.html: no name linked into api/${dir}/\n")
  endif()
  string(REGEX MATCHALL "href=\"api/[0-9][0-9]_[a-z_]+/" into "${tutorial}")
  list(REMOVE_DUPLICATES into)
  list(REMOVE_ITEM into "href=\"api/${dir}/")
  if(into)
    string(APPEND problems "md_docs_${dir}.html: links into another chapter's reference: ${into}\n")
  endif()
  file(GLOB pages ${api}/*.html)
  foreach(page IN LISTS pages)
    if(page MATCHES "_source\\.html$")
      continue() # the header as written, internals and all
    endif()
    file(READ ${page} text)
    # A link to it, a row of a member list, or a macro's heading.
    if(text MATCHES "(class=\"el\"[^>]*>|memItemRight\"[^>]*>|memname\">#define )(taal__|TAAL__)[A-Za-z0-9_]*")
      get_filename_component(name ${page} NAME)
      string(APPEND problems "api/${dir}/${name}: lists an internal name: ${CMAKE_MATCH_0}\n")
    endif()
  endforeach()
endforeach()
file(READ ${HTML}/api/01_awaitable/structtaal__coro.html coro)
string(REGEX MATCHALL "<td class=\"memItemRight\"" fields "${coro}")
list(LENGTH fields n)
if(NOT n EQUAL 4)
  string(APPEND problems "api/01_awaitable/structtaal__coro.html: ${n} fields, not chapter 01's 4\n")
endif()
file(READ ${HTML}/md_docs_01_awaitable.html tutorial)
if(NOT tutorial MATCHES "href=\"api/01_awaitable/taal_8h.html#[0-9a-f]+\">taal_send</a>")
  string(APPEND problems "md_docs_01_awaitable.html: taal_send does not link to chapter 01's\n")
endif()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
message("each of the ${CHAPTERS} has its own API reference")
