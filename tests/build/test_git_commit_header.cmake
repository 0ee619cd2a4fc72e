# engine/train/write_git_commit.cmake, as every build runs it: in a scratch
# git repository, the header names the commit; a second run with no new
# commit leaves it untouched (so nothing recompiles); after a new commit it
# names the new one (so --version does).
#
#   cmake -DSCRIPT=.../write_git_commit.cmake -DSCRATCH=<empty folder> -P test_git_commit_header.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/repo)
set(header ${SCRATCH}/git_commit.h)

function(git)
  execute_process(COMMAND git -c user.name=test -c user.email=test@localhost ${ARGN}
                  WORKING_DIRECTORY ${SCRATCH}/repo RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
  if(failed)
    message(FATAL_ERROR "git ${ARGN} failed")
  endif()
endfunction()

function(commit_file text)
  file(WRITE ${SCRATCH}/repo/file.txt "${text}")
  git(add file.txt)
  git(commit -q -m "${text}")
endfunction()

function(write_header)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${SCRATCH}/repo -DOUTPUT=${header}
                          -P ${SCRIPT} RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${SCRIPT} failed")
  endif()
endfunction()

function(expect_commit)
  execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SCRATCH}/repo
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE)
  file(READ ${header} text)
  if(NOT text MATCHES "#define DP_GIT_COMMIT \"${commit}\"")
    message(FATAL_ERROR "the header does not name commit ${commit}:\n${text}")
  endif()
endfunction()

git(init -q)
commit_file("first")
write_header()
expect_commit()

# No new commit: the header is not rewritten (its time stays; build_info.cpp
# would otherwise recompile at every build).
file(TIMESTAMP ${header} before "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
write_header()
file(TIMESTAMP ${header} after "%s")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the header was rewritten with no new commit (${before} -> ${after})")
endif()

commit_file("second")
write_header()
expect_commit()
message(STATUS "the header follows the commit and is rewritten only when it changes")
