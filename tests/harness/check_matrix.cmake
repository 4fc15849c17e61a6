# check_matrix.cmake -- is every chapter's unit suite run against every later
# chapter? Lists the registered tests and looks for chK...@chN for each K < N.
#
#   cmake -DCHAPTERS=ch01,ch02 -DCTEST=ctest -DBUILD=<dir> -P check_matrix.cmake
string(REPLACE "," ";" CHAPTERS "${CHAPTERS}")
execute_process(COMMAND ${CTEST} -N --test-dir ${BUILD} OUTPUT_VARIABLE listing
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ctest -N failed")
endif()
list(LENGTH CHAPTERS count)
set(missing)
set(pairs 0)
foreach(k RANGE ${count})
  foreach(n RANGE ${count})
    if(k LESS n AND n LESS count)
      list(GET CHAPTERS ${k} older)
      list(GET CHAPTERS ${n} newer)
      math(EXPR pairs "${pairs} + 1")
      if(NOT listing MATCHES "${older}\\.[^\n]*@${newer}\n")
        list(APPEND missing "${older}@${newer}")
      endif()
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "no unit tests registered for: ${missing}")
endif()
message("forward matrix complete: ${pairs} pairs of chapters")
