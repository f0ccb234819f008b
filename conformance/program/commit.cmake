# Writes build_info.cpp with the version and the commit the build is made
# from. Run at every build (cmake -P), it rewrites the file only when its text
# changes, so a build at the same commit compiles nothing and a new commit
# recompiles this one file.
#
#   -DSOURCE_DIR=  the project's source tree
#   -DTEMPLATE=    build_info.cpp.in
#   -DOUTPUT=      the .cpp to write
#   -DVERSION=     the project's version
#   -DCOMMIT=      a fixed commit (RDMACONF_COMMIT), empty to ask git
set(RDMACONF_VERSION "${VERSION}")
set(RDMACONF_COMMIT "${COMMIT}")
if(RDMACONF_COMMIT STREQUAL "")
  set(RDMACONF_COMMIT "unknown")
  find_program(GIT_EXECUTABLE git)
  if(GIT_EXECUTABLE)
    # Only a checkout of this project counts: a tarball unpacked inside some
    # other git repository (a packaging repository) must not take its commit.
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                    OUTPUT_VARIABLE toplevel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      file(REAL_PATH "${toplevel}" toplevel)
      file(REAL_PATH "${SOURCE_DIR}" source_dir)
    endif()
    if(rc EQUAL 0 AND toplevel STREQUAL source_dir)
      execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse HEAD
                      OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
      if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
        set(RDMACONF_COMMIT "${head}")
        # Tracked files only: build folders and other untracked files do not
        # make a build dirty.
        execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                        OUTPUT_VARIABLE changes ERROR_QUIET RESULT_VARIABLE rc)
        if(rc EQUAL 0 AND NOT changes STREQUAL "")
          string(APPEND RDMACONF_COMMIT "-dirty")
        endif()
      endif()
    endif()
  endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
