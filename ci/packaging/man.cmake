# Writes the man pages of rdmaconf and rdmaconf-agent with help2man, from
# the programs' own --help, so that they say what the programs do:
#   rdmaconf.1           the command, its subcommands, environment, files, exit status
#   rdmaconf-SUB.1       one page per subcommand (`rdmaconf SUB --help`)
#   rdmaconf-agent.1
# each gzipped (gzip -9n, as Debian installs man pages).
#
#   cmake -DRDMACONF=... -DAGENT=... -DHELP2MAN=... -DGZIP=... -DINCLUDES=<ci/packaging/> -DOUT=<folder> -P man.cmake
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

function(first_line program out)
  execute_process(COMMAND "${program}" --version OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${program} --version failed: ${rc}")
  endif()
  string(REGEX MATCH "^[^\n]*" line "${text}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# help2man PROGRAM OUTPUT HELP_OPTION VERSION_STRING NAME INCLUDE: one
# argument each, so that a description with a ';' stays whole.
function(help2man program output help_option version_string name include)
  execute_process(COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --output "${OUT}/${output}"
                          --help-option "${help_option}" --version-string "${version_string}"
                          --name "${name}" --include "${include}" "${program}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man ${output} failed: ${rc}")
  endif()
  execute_process(COMMAND "${GZIP}" -9nf "${OUT}/${output}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${output} failed: ${rc}")
  endif()
endfunction()

# The subcommands, with their one-line descriptions, as `rdmaconf --help` lists them.
execute_process(COMMAND "${RDMACONF}" --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${RDMACONF} --help failed: ${rc}")
endif()
string(REGEX REPLACE "^.*\nSubcommands:\n" "" listing "${help}")
string(REPLACE ";" "<semicolon>" listing "${listing}")  # one list element per line
string(REPLACE "\n" ";" listing "${listing}")
first_line("${RDMACONF}" version_line)
string(REGEX REPLACE "^rdmaconf " "" version "${version_line}")
set(see_also "")
foreach(line IN LISTS listing)
  if(NOT line MATCHES "^  ([a-z][a-z0-9-]*) +(.*)$")
    continue()
  endif()
  set(sub "${CMAKE_MATCH_1}")
  string(REPLACE "<semicolon>" ";" description "${CMAKE_MATCH_2}")
  file(WRITE "${OUT}/${sub}.h2m" "[SEE ALSO]\n.BR rdmaconf (1)\n")
  help2man("${RDMACONF}" "rdmaconf-${sub}.1" "${sub} --help" "rdmaconf-${sub} (rdmaconf) ${version}"
           "${description}" "${OUT}/${sub}.h2m")
  file(REMOVE "${OUT}/${sub}.h2m")
  string(APPEND see_also ".BR rdmaconf-${sub} (1),\n")
endforeach()
if(see_also STREQUAL "")
  message(FATAL_ERROR "no subcommands found in `rdmaconf --help`")
endif()

file(READ "${INCLUDES}/rdmaconf.h2m" include)
file(WRITE "${OUT}/rdmaconf.h2m" "${include}\n[SEE ALSO]\n${see_also}.BR rdmaconf-agent (1)\n")
help2man("${RDMACONF}" rdmaconf.1 --help "${version_line}"
         "conformance and fuzzing suite for RDMA over IP (iWARP MPA, DDP, RDMAP, SMC-R)" "${OUT}/rdmaconf.h2m")
file(REMOVE "${OUT}/rdmaconf.h2m")

first_line("${AGENT}" agent_version_line)
help2man("${AGENT}" rdmaconf-agent.1 --help "${agent_version_line}"
         "device agent: plays the test ULP on the device under test for rdmaconf run --agent"
         "${INCLUDES}/rdmaconf-agent.h2m")
