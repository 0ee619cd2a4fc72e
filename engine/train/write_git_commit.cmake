# Writes OUTPUT, a header defining DP_GIT_COMMIT as SOURCE_DIR's short commit
# ("" outside a git checkout), only when the commit differs from the one it
# holds: run on every build (engine/CMakeLists.txt), it makes build_info.cpp
# recompile after a new commit and nothing recompile otherwise.
#
#   cmake -DSOURCE_DIR=... -DOUTPUT=.../git_commit.h -P write_git_commit.cmake
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(text "// Written by engine/train/write_git_commit.cmake.\n#define DP_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
