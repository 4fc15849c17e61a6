# timeline.cmake -- a program's timeline picture, for its tutorial.
#
#   cmake -DPROGRAM=<path> [-DARGS=a;b] -DTIMELINE=<tools/timeline> -DTITLE=<t>
#         -DOUT=<docs/timelines/NN/name.svg> [-DCHECK=ON] -P timeline.cmake
#
# Runs the program on the virtual clock with TAAL_TRACE set, so that the
# trace, and so the picture, is the same on every run and every machine;
# then draws it with tools/timeline. The pictures are committed under
# docs/timelines/, shown by the tutorials, and checked to be current by
# the test suite; `cmake --build build --target timelines` refreshes them.
get_filename_component(name ${OUT} NAME_WE)
set(work ${CMAKE_CURRENT_BINARY_DIR}/timeline-${name})
file(MAKE_DIRECTORY ${work})
execute_process(COMMAND ${CMAKE_COMMAND} -E env TAAL_CLOCK=virtual TAAL_TRACE=${work}/trace.json
                        TAAL_DEBUG=0 ${PROGRAM} ${ARGS}
                OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE status TIMEOUT 60)
if(NOT EXISTS ${work}/trace.json)
  message(FATAL_ERROR "${PROGRAM} wrote no trace (exit status ${status})")
endif()
execute_process(COMMAND ${TIMELINE} --title ${TITLE} --svg ${work}/${name}.svg
                        ${work}/trace.json
                OUTPUT_QUIET RESULT_VARIABLE drawn ERROR_VARIABLE why)
if(NOT drawn EQUAL 0)
  message(FATAL_ERROR "timeline could not draw ${PROGRAM}'s trace: ${why}")
endif()
if(CHECK)
  file(READ ${work}/${name}.svg fresh)
  file(READ ${OUT} committed)
  if(NOT fresh STREQUAL committed)
    message(FATAL_ERROR "${OUT} is out of date: run `cmake --build build --target timelines` "
                        "and commit the result")
  endif()
  message("${OUT} is current")
else()
  get_filename_component(out_dir ${OUT} DIRECTORY)
  file(MAKE_DIRECTORY ${out_dir}) # a new chapter's first timeline
  file(COPY_FILE ${work}/${name}.svg ${OUT})
endif()
