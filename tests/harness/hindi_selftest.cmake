# hindi_selftest.cmake -- the Hindi checks (check_hindi.cmake) can fail.
#
#   cmake -DROOT=<repo> -DSCRATCH=<dir> -DPAGE=<hindi page> -DENGLISH=docs/X.md
#         -DGLOSSARY=<file> -DTEST=staleness|lint
#         -DFROM=<text> -DTO=<text> -DREASON=<regex> -P hindi_selftest.cmake
#
# The Hindi page and its English source are copied into SCRATCH as
# docs/hi/<page> and docs/X.md, with the glossary.
#   staleness: a page whose hashes are "pending" fails; refreshed, it passes;
#     FROM changed to TO in the English copy, it fails matching REASON (the
#     section to revisit); refreshed again, it passes.
#   lint: the page passes; FROM changed to TO in the Hindi copy (a banned
#     variant planted, or a lone double quote), it fails matching REASON.
#     -DLINT=terms (the default) or markup: the check that must catch it.
foreach(var ROOT SCRATCH PAGE ENGLISH GLOSSARY TEST FROM TO REASON)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "hindi_selftest.cmake: -D${var}=... is missing")
  endif()
endforeach()
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}/docs/hi")
get_filename_component(name "${PAGE}" NAME)
file(COPY_FILE "${PAGE}" "${SCRATCH}/docs/hi/${name}")
file(COPY_FILE "${ROOT}/${ENGLISH}" "${SCRATCH}/${ENGLISH}")
file(COPY_FILE "${GLOSSARY}" "${SCRATCH}/docs/hi/glossary.md")
set(script ${CMAKE_CURRENT_LIST_DIR}/check_hindi.cmake)

# run(<must pass: ON|OFF> <reason regex or ""> <args>...)
function(run pass reason)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${SCRATCH} ${ARGN} -P ${script}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(pass AND NOT status EQUAL 0)
    message(FATAL_ERROR "the check failed; it had to pass")
  elseif(NOT pass)
    if(status EQUAL 0)
      message(FATAL_ERROR "the check passed; it had to fail")
    endif()
    string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
    if(NOT out MATCHES "${reason}" AND NOT flat MATCHES "${reason}")
      message(FATAL_ERROR "the check failed, but not with /${reason}/")
    endif()
    message("failed as it had to: /${reason}/")
  endif()
endfunction()

function(change file)
  file(READ "${file}" text)
  string(FIND "${text}" "${FROM}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${file} does not contain '${FROM}'")
  endif()
  string(REPLACE "${FROM}" "${TO}" text "${text}")
  file(WRITE "${file}" "${text}")
endfunction()

if(TEST STREQUAL "staleness")
  file(READ "${SCRATCH}/docs/hi/${name}" text)
  if(NOT text MATCHES "sha: pending -->")
    message(FATAL_ERROR "${PAGE} has no 'sha: pending' marker to start from")
  endif()
  run(OFF "docs/hi/${name}:[0-9]+: the hash of .* is still 'pending'" -DCHECK=follows)
  run(ON "" -DCHECK=follows -DREFRESH=ON)
  run(ON "" -DCHECK=follows)
  # A refresh rewrites the hashes and nothing else: not a line of a quoted
  # C macro, whose backslashes once joined its lines into one.
  file(READ "${SCRATCH}/docs/hi/${name}" after)
  string(REGEX REPLACE "sha: [0-9a-z]+ -->" "sha: H -->" before_n "${text}")
  string(REGEX REPLACE "sha: [0-9a-z]+ -->" "sha: H -->" after_n "${after}")
  if(NOT before_n STREQUAL after_n)
    message(FATAL_ERROR "the refresh changed more than the hashes of ${name}")
  endif()
  change("${SCRATCH}/${ENGLISH}")
  run(OFF "${REASON}" -DCHECK=follows)
  run(ON "" -DCHECK=follows -DREFRESH=ON)
  run(ON "" -DCHECK=follows)
elseif(TEST STREQUAL "lint")
  if(NOT DEFINED LINT)
    set(LINT terms)
  endif()
  run(ON "" -DCHECK=${LINT})
  change("${SCRATCH}/docs/hi/${name}")
  run(OFF "${REASON}" -DCHECK=${LINT})
else()
  message(FATAL_ERROR "TEST must be staleness or lint, not '${TEST}'")
endif()
