# table_test.cmake -- the test of table.cmake (bench.table_splice): on a
# copy of a page with text around the "bench-table" lines, it must put the
# runner's table between them, twice in a row (the second run replacing
# the first's table, not adding to it), and leave the text around them
# as it was. Takes the same -D variables as table.cmake, but DOC is
# created here.
set(page "# A page\n\nBefore the table.\n\n<!-- bench-table: begin (a note) -->\nold table\n<!-- bench-table: end -->\n\nAfter the table; a; semicolon and [brackets].\n")
file(WRITE ${DOC} "${page}")
foreach(round 1 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -DRUNNER=${RUNNER} "-DARGS=${ARGS}" -DOUT=${OUT}
                          -DDOC=${DOC} -DSOURCE=${SOURCE} -P ${SCRIPT}
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "table.cmake failed in round ${round}: ${rc}")
  endif()
  file(READ ${DOC} got)
  string(FIND "${got}" "# A page\n\nBefore the table.\n\n<!-- bench-table: begin (a note) -->\n" at_head)
  string(FIND "${got}" "<!-- bench-table: end -->\n\nAfter the table; a; semicolon and [brackets].\n" at_tail)
  string(FIND "${got}" "old table" at_old)
  string(REGEX MATCHALL "\\| target \\(issue 24\\) \\|" headers "${got}")
  list(LENGTH headers count)
  if(NOT at_head EQUAL 0 OR at_tail LESS 0 OR NOT at_old EQUAL -1 OR NOT count EQUAL 1)
    message(FATAL_ERROR "round ${round}: the page is not the table between the lines "
                        "(head ${at_head}, tail ${at_tail}, old ${at_old}, tables ${count}):\n${got}")
  endif()
endforeach()
message(STATUS "table.cmake: the table replaced the old one, twice, text around it kept")
