# Run at every build (cmake -P): writes OUTPUT, a C++ source naming the commit the sources come
# from and whether they differ from it, so that every report can say which code made it.
# The file is rewritten only when its text changes, so that an unchanged tree relinks nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P provenance.cmake
set(commit "unknown")
set(dirty "true")
set(changed "")
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_status
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_status EQUAL 0)
    set(commit "${head}")
    # Untracked files count: a new source is part of the build as much as an edited one.
    # No optional locks: a build must not take index.lock from a git command running beside
    # it. Paths unquoted, as they are.
    execute_process(COMMAND ${GIT} --no-optional-locks -C ${SOURCE_DIR} -c core.quotePath=false
                            status --porcelain=v1
                    OUTPUT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(status STREQUAL "")
      set(dirty "false")
    else()
      string(REPLACE "\n" ";" lines "${status}")
      foreach(line IN LISTS lines)
        string(SUBSTRING "${line}" 3 -1 path)
        string(REGEX REPLACE "^.* -> " "" path "${path}")  # a rename: its new name
        string(REPLACE "\"" "" path "${path}")
        string(REPLACE "\\" "/" path "${path}")
        string(APPEND changed "    \"${path}\",\n")
      endforeach()
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/provenance.cmake: do not edit.
#include \"core/provenance.hpp\"

namespace acclab {

const Provenance& provenance() {
  static const Provenance facts{\"${commit}\", ${dirty}, {
${changed}  }};
  return facts;
}

}  // namespace acclab
")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE ${OUTPUT} "${text}")
