# check_time_limits.cmake -- does every test have a time limit? A wrong
# answer that loops must fail, not hang the suite; a test without a TIMEOUT
# would wait for it forever.
#
#   cmake -DCTEST=ctest -DBUILD=<dir> -P check_time_limits.cmake
#   cmake -DJSON=<file> -P check_time_limits.cmake     (a saved listing)
#
# Reads what `ctest --show-only=json-v1` says about every test and fails,
# naming them, if any lacks a TIMEOUT greater than zero.
if(DEFINED JSON)
  file(READ ${JSON} listing)
else()
  execute_process(COMMAND ${CTEST} --show-only=json-v1 --test-dir ${BUILD}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ctest --show-only=json-v1 failed")
  endif()
endif()

string(JSON tests GET "${listing}" tests)
string(JSON count LENGTH "${tests}")
if(count EQUAL 0)
  message(FATAL_ERROR "no tests listed: nothing was checked")
endif()
set(missing)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON test GET "${tests}" ${i})
  string(JSON name GET "${test}" name)
  set(limit 0)
  string(JSON properties ERROR_VARIABLE none GET "${test}" properties)
  set(nprops 0)
  if(NOT none)
    string(JSON nprops LENGTH "${properties}")
  endif()
  if(nprops GREATER 0)
    math(EXPR plast "${nprops} - 1")
    foreach(p RANGE ${plast})
      string(JSON property GET "${properties}" ${p} name)
      if(property STREQUAL "TIMEOUT")
        string(JSON limit GET "${properties}" ${p} value)
      endif()
    endforeach()
  endif()
  if(NOT limit GREATER 0)
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  list(LENGTH missing n)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "${n} of ${count} tests have no time limit (TIMEOUT):\n  ${missing}")
endif()
message("every one of ${count} tests has a time limit")
