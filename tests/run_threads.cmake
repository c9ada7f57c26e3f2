# Runs DIR/NAME.model (with DIR/NAME.args) under --threads 1 and --threads 2: each run must end
# within the timeout and print NAME.out, as the default run does. A mesh's devices outnumber
# the cores there, so a device that held its core while waiting at a collective would hang.
set(options "")
if(EXISTS ${DIR}/${NAME}.args)
  file(READ ${DIR}/${NAME}.args options)
  separate_arguments(options UNIX_COMMAND "${options}")
endif()
file(READ ${DIR}/${NAME}.out expected)
set(ENV{WEFT_GEMM} eigen)
foreach(threads 1 2)
  execute_process(COMMAND ${WEFT} run --threads ${threads} ${options} ${NAME}.model WORKING_DIRECTORY ${DIR}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 60)
  if(NOT status STREQUAL "0" OR NOT out STREQUAL expected)
    message(FATAL_ERROR "--threads ${threads}: status ${status}\n--- expected\n${expected}--- actual\n${out}${err}")
  endif()
endforeach()
