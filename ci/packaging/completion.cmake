# Writes a program's bash completion (`PROGRAM --bash-completion`) to OUTPUT.
#   cmake -DPROGRAM=... -DOUTPUT=... -P completion.cmake
execute_process(COMMAND "${PROGRAM}" --bash-completion OUTPUT_FILE "${OUTPUT}.new" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.new")
  message(FATAL_ERROR "${PROGRAM} --bash-completion failed: ${rc}")
endif()
file(RENAME "${OUTPUT}.new" "${OUTPUT}")
