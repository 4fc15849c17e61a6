# check.cmake -- run timeline on one trace and check all that it does.
#
#   cmake -DTIMELINE=<program> -DOUT=<path prefix> [-DTRACE=<trace file>]
#         [-DWRAPPER=<command list>] [-DARGS=<list>] [-DSTDIN=ON]
#         [-DSVG=<expected .svg>] [-DASCII=<expected .txt>]
#         [-DSTATUS=<exit status, 0 if not given>]
#         [-DERROR=<regex that stderr must match>]
#         -P check.cmake
#
# Runs  WRAPPER TIMELINE ARGS [--svg OUT.svg] [--ascii] TRACE  (or, with
# STDIN, "-" as the trace and the file as standard input; without TRACE,
# no trace at all). Then checks, in
# order: the exit status; stderr (it must match ERROR, or be empty without
# it); the SVG written to OUT.svg against SVG, byte for byte; stdout,
# saved in OUT.txt, against ASCII byte for byte (without ASCII, stdout must
# be empty). A difference is reported with the first line that differs,
# and with the file that holds the new output, so that a deliberate change
# can be accepted by copying it over the expected one.
#
# The reasons for a failure are printed with a plain message(), which CMake
# prints as it is: a FATAL_ERROR message would be re-wrapped, and tests
# that prove a check fails match the reason's exact text.
foreach(var TIMELINE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT DEFINED STATUS)
  set(STATUS 0)
endif()

macro(fail)
  message("${ARGN}")
  message(FATAL_ERROR "check failed")
endmacro()

# first_difference(<expected> <actual> <out-var>): describes the first line
# where two texts differ. The common prefix is found by halving (CMake has
# no loop over characters that would be fast enough), then the line around
# its end is cut out of both.
function(first_difference expected actual out_var)
  string(LENGTH "${expected}" expected_len)
  string(LENGTH "${actual}" actual_len)
  set(low 0)
  if(expected_len LESS actual_len)
    set(high ${expected_len})
  else()
    set(high ${actual_len})
  endif()
  while(low LESS high)
    math(EXPR middle "(${low} + ${high} + 1) / 2")
    string(SUBSTRING "${expected}" 0 ${middle} a)
    string(SUBSTRING "${actual}" 0 ${middle} b)
    if(a STREQUAL b)
      set(low ${middle})
    else()
      math(EXPR high "${middle} - 1")
    endif()
  endwhile()
  string(SUBSTRING "${expected}" 0 ${low} common)
  string(REGEX MATCHALL "\n" newlines "${common}")
  list(LENGTH newlines line)
  math(EXPR line "${line} + 1")
  string(FIND "${common}" "\n" start REVERSE)
  math(EXPR start "${start} + 1")
  foreach(which expected actual)
    string(SUBSTRING "${${which}}" ${start} -1 rest)
    string(FIND "${rest}" "\n" stop)
    if(stop EQUAL -1)
      set(${which}_line "'${rest}' (no newline)")
    else()
      string(SUBSTRING "${rest}" 0 ${stop} rest)
      set(${which}_line "'${rest}'")
    endif()
    if("${rest}" STREQUAL "" AND stop EQUAL -1)
      set(${which}_line "the end of the output")
    endif()
  endforeach()
  set(${out_var} "on line ${line}:\n  expected ${expected_line}\n       got ${actual_line}"
      PARENT_SCOPE)
endfunction()

# compare(<what> <expected file> <actual file>)
function(compare what expected_file actual_file)
  file(READ "${expected_file}" expected)
  file(READ "${actual_file}" actual)
  if(NOT expected STREQUAL actual)
    first_difference("${expected}" "${actual}" where)
    fail("the ${what} differs from ${expected_file} ${where}\n"
         "(the new ${what} is in ${actual_file})")
  endif()
endfunction()

set(command ${WRAPPER} ${TIMELINE} ${ARGS})
if(DEFINED SVG)
  list(APPEND command --svg ${OUT}.svg)
  file(REMOVE ${OUT}.svg)
endif()
if(DEFINED ASCII)
  list(APPEND command --ascii)
endif()
set(input)
if(STDIN)
  list(APPEND command -)
  set(input INPUT_FILE ${TRACE})
elseif(DEFINED TRACE)
  list(APPEND command ${TRACE})
endif()
execute_process(COMMAND ${command} ${input} RESULT_VARIABLE status OUTPUT_FILE ${OUT}.txt
                ERROR_VARIABLE errors TIMEOUT 25)
string(REPLACE ";" " " shown "${command}")
message("ran: ${shown}")

if(NOT status STREQUAL STATUS)
  fail("exit status ${status}, expected ${STATUS}; stderr: ${errors}")
endif()
if(DEFINED ERROR)
  if(NOT errors MATCHES "${ERROR}")
    fail("stderr does not match /${ERROR}/; it is: ${errors}")
  endif()
elseif(NOT errors STREQUAL "")
  fail("stderr should be empty; it is: ${errors}")
endif()
if(DEFINED SVG)
  compare("SVG" ${SVG} ${OUT}.svg)
endif()
if(DEFINED ASCII)
  compare("ASCII" ${ASCII} ${OUT}.txt)
else()
  file(SIZE ${OUT}.txt size)
  if(NOT size EQUAL 0)
    fail("stdout should be empty; it is in ${OUT}.txt")
  endif()
endif()
message("ok")
