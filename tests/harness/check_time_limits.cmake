# check_time_limits.cmake -- does every test have a time limit? A wrong
# answer that loops must fail, not hang the suite; a test without a TIMEOUT
# would wait for it forever.
#
#   cmake -DLIMITCHECK=<limitcheck> -DCTEST=ctest -DBUILD=<dir> -P check_time_limits.cmake
#   cmake -DLIMITCHECK=<limitcheck> -DJSON=<file> -P check_time_limits.cmake  (a saved listing)
#
# Saves what `ctest --show-only=json-v1` says about every test, and has
# limitcheck (limitcheck.c) read it: it fails, naming them, if any test
# lacks a TIMEOUT greater than zero.
if(NOT DEFINED JSON)
  set(JSON ${BUILD}/time_limits.json)
  execute_process(COMMAND ${CTEST} --show-only=json-v1 --test-dir ${BUILD}
                  OUTPUT_FILE ${JSON} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ctest --show-only=json-v1 failed")
  endif()
endif()
execute_process(COMMAND ${LIMITCHECK} ${JSON} RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${err}")
endif()
message("${out}")
