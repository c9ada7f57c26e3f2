# Runs DIR/NAME.model under --threads 1, 2 and 3 (the GEMM plan the machine chose): each run must
# succeed and print the same text, whose values are printed to the last bit. Nothing is compared
# with a file: the bits differ between machines, never between thread counts.
foreach(threads 1 2 3)
  execute_process(COMMAND ${WEFT} run --threads ${threads} ${NAME}.model WORKING_DIRECTORY ${DIR}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 300)
  if(NOT status STREQUAL "0" OR out STREQUAL "")
    message(FATAL_ERROR "--threads ${threads}: status ${status}\n${out}${err}")
  endif()
  if(threads EQUAL 1)
    set(first "${out}")
  elseif(NOT out STREQUAL first)
    message(FATAL_ERROR "--threads ${threads} printed other values than --threads 1\n--- 1 thread\n${first}--- ${threads} threads\n${out}")
  endif()
endforeach()
message("${first}")
