# tour.cmake -- run every chapter's example programs, in order, in real time,
# and check what each prints against its tutorial.
#
#   cmake -DDOCCHECK=<doccheck> -DROOT=<repository>
#         -DCHAPTERS="doc.md|name=path,name=path^doc.md|..." -P tour.cmake
#
# Each chapter's title is the first heading of its tutorial. Its programs
# are run by doccheck on the real clock (--real-clock --echo), in the order
# the tutorial shows them: each one's output appears as it prints it, at its
# own pace, and is then compared with the tutorial's documented output,
# line for line. A number that is a time ("1.5 s", "250 ms") may differ from
# the documented one by 0.25 s plus 10% of it (doccheck's default
# --time-tolerance; a real sleep is never early, and a machine under load
# wakes late); everything else must be as documented, and so must the exit
# status ("(exit N)" in the marker). A time counted from the clock's origin
# instead of the program's start (3974.4 s where the tutorial says 1.0 s)
# fails. Output that legitimately depends on real time, such as two timers
# due together firing in either order, is exempted line by line in the
# tutorial's marker, with the reason: "(real clock: lines 10-11: why)".
# Every program of the chapter must have documented output (--require).
if(NOT DEFINED DOCCHECK OR NOT DEFINED ROOT OR NOT DEFINED CHAPTERS)
  message(FATAL_ERROR "usage: cmake -DDOCCHECK=<doccheck> -DROOT=<repository> "
                      "-DCHAPTERS=<doc.md|name=path,...^...> -P tour.cmake")
endif()
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
  set(args)
  foreach(program IN LISTS programs)
    string(REGEX MATCH "^[^=]+" name "${program}")
    list(APPEND args --program "${program}" --require "${name}")
  endforeach()
  # 60 s a program: the longest sleeps 8 s of real time.
  execute_process(COMMAND ${DOCCHECK} --root ${ROOT} --outputs-only --real-clock --echo
                          --timeout 60 ${args} ${doc}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    get_filename_component(name "${doc}" NAME)
    list(APPEND failed ${name})
  endif()
endforeach()
message("")
if(failed)
  message(FATAL_ERROR "the tour ended with failures (FAIL above) in: ${failed}")
endif()
message("End of the tour.")
