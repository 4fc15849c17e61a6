# plant_in_book.cmake -- a check of the rendered book that cannot fail is no
# check: copy the built book, plant one fault in one page, and require
# bookcheck to fail, naming it.
#
#   cmake -DBOOKCHECK=<bookcheck> -DHTML=<html dir> -DSUBDIRS=<a,b,...>
#         -DCOPY=<dir> -DPAGE=<page.html> -DFROM=<text> -DTO=<text>
#         -DREASON=<regex> -P plant_in_book.cmake
#
# The first FROM in PAGE becomes TO (FROM must be there). Passes only if
# bookcheck exits 1, its output matches REASON, and it found one problem:
# the planted one (the book it was copied from is clean).
cmake_minimum_required(VERSION 3.25)
foreach(var BOOKCHECK HTML COPY PAGE FROM TO REASON)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plant_in_book.cmake: -D${var}=... is missing")
  endif()
endforeach()
file(REMOVE_RECURSE "${COPY}")
file(COPY "${HTML}/" DESTINATION "${COPY}")
string(REPLACE "," ";" SUBDIRS "${SUBDIRS}")
file(READ "${COPY}/${PAGE}" page)
string(FIND "${page}" "${FROM}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PAGE} does not contain '${FROM}', the text to change")
endif()
string(LENGTH "${FROM}" length)
string(SUBSTRING "${page}" 0 ${at} before)
math(EXPR rest_at "${at} + ${length}")
string(SUBSTRING "${page}" ${rest_at} -1 after)
file(WRITE "${COPY}/${PAGE}" "${before}${TO}${after}")
execute_process(COMMAND "${BOOKCHECK}" "${COPY}" ${SUBDIRS} RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
file(REMOVE_RECURSE "${COPY}")
if(NOT status EQUAL 1)
  message(FATAL_ERROR "bookcheck exited with '${status}'; it had to find the fault (1)")
endif()
if(NOT out MATCHES "${REASON}")
  message(FATAL_ERROR "bookcheck failed, but not for the reason planted: ${REASON}")
endif()
if(NOT out MATCHES " pages, 1 problems\n")
  message(FATAL_ERROR "bookcheck found more than the one problem planted")
endif()
