# apply.cmake -- make every answer of a chapter's lab, without building any:
# the reference (each exercise's solution applied) and each wrong answer,
# and the students' handout (stub), which must give no answer away (see
# lab_check_no_answer in cmake/handout.cmake).
# An edit whose text the chapter no longer has stops the handout generator,
# naming the edit; this finds that in a fraction of a second, where the
# graded lab tests (check.cmake) take minutes and run only in some presets.
#
#   cmake -DCHAPTER=07_io -DDIR=<scratch folder> -P apply.cmake
cmake_minimum_required(VERSION 3.25)
get_filename_component(root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

file(GLOB wrong RELATIVE ${root}/labs/${CHAPTER}/wrong ${root}/labs/${CHAPTER}/wrong/*.cmake)
list(TRANSFORM wrong REPLACE "\\.cmake$" "")
set(failed)
foreach(variant IN ITEMS stub reference LISTS wrong)
  execute_process(COMMAND ${CMAKE_COMMAND} -DCHAPTER=${CHAPTER} -DOUT=${DIR}/${variant}
                          -DVARIANT=${variant} -P ${root}/cmake/handout.cmake
                  OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    string(APPEND failed "\n${variant}:\n${err}")
  endif()
endforeach()
file(REMOVE_RECURSE ${DIR})
if(failed)
  message(FATAL_ERROR "variants of ${CHAPTER}'s lab that could not be made (an answer that no longer applies, a handout that gives an answer away):${failed}")
endif()
