# tour.cmake -- run every chapter's example programs, in order, in real time.
#
#   cmake -DCHAPTERS="doc.md|name=path,name=path^doc.md|..." -P tour.cmake
#
# Each chapter's title is the first heading of its tutorial. The programs'
# output is not captured: it appears as they print it, at their own pace.
string(REPLACE "^" ";" CHAPTERS "${CHAPTERS}")
set(failed)
foreach(chapter IN LISTS CHAPTERS)
  string(REPLACE "|" ";" chapter "${chapter}")
  list(GET chapter 0 doc)
  list(GET chapter 1 programs)
  file(STRINGS "${doc}" title LIMIT_COUNT 1 REGEX "^# ")
  string(REGEX REPLACE "^# +" "" title "${title}")
  message("")
  message("==== ${title} ====")
  string(REPLACE "," ";" programs "${programs}")
  foreach(program IN LISTS programs)
    string(REGEX MATCH "^[^=]+" name "${program}")
    string(REGEX REPLACE "^[^=]+=" "" path "${program}")
    message("")
    message("$ ${name}")
    execute_process(COMMAND ${path} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message("(${name} exited with status ${status})")
      list(APPEND failed ${name})
    endif()
  endforeach()
endforeach()
message("")
if(failed)
  message(FATAL_ERROR "the tour ended with failures: ${failed}")
endif()
message("End of the tour.")
