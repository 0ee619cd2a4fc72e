# scripts/check-floors on a scratch tree: a ui/ file of 601 lines is one
# violation, named with its size on one line; one of 600 lines (the most a
# ui/ file may have) passes.
#
#   cmake -DSCRIPT=.../scripts/check-floors -DSCRATCH=<empty folder> -P test_check_floors_ui_lines.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/ui/charts)

# `count` lines of code in `path`.
function(write_lines path count)
  string(REPEAT "int x;\n" ${count} text)
  file(WRITE ${path} "${text}")
endfunction()

function(check_floors)
  execute_process(COMMAND bash ${SCRIPT} ${SCRATCH} RESULT_VARIABLE status OUTPUT_VARIABLE output
                  ERROR_VARIABLE errors)
  set(status ${status} PARENT_SCOPE)
  set(output "${output}" PARENT_SCOPE)
endfunction()

write_lines(${SCRATCH}/ui/main_window.cpp 600)
write_lines(${SCRATCH}/ui/charts/long_chart.cpp 601)
check_floors()
if(status EQUAL 0)
  message(FATAL_ERROR "check-floors passed a ui/ file of 601 lines:\n${output}")
endif()
if(NOT output MATCHES "ui/charts/long_chart.cpp: 601 lines, over the 600")
  message(FATAL_ERROR "check-floors did not name the long file and its size:\n${output}")
endif()
if(output MATCHES "main_window")
  message(FATAL_ERROR "check-floors refused a ui/ file of 600 lines:\n${output}")
endif()

file(REMOVE ${SCRATCH}/ui/charts/long_chart.cpp)
check_floors()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "check-floors failed a tree whose ui/ files are at most 600 lines:\n${output}")
endif()
