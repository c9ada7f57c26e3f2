# Runs DIR/NAME.model twice, its graph functions traced and then run eagerly
# (--run-functions-eagerly): the two runs must print the same and end with the same status.
foreach(mode graph eager)
  set(flag "")
  if(mode STREQUAL "eager")
    set(flag --run-functions-eagerly)
  endif()
  execute_process(COMMAND ${WEFT} run ${flag} ${NAME}.model WORKING_DIRECTORY ${DIR}
                  OUTPUT_VARIABLE out_${mode} ERROR_VARIABLE err_${mode} RESULT_VARIABLE status_${mode}
                  TIMEOUT 120)
endforeach()
if(NOT out_graph STREQUAL out_eager OR NOT status_graph STREQUAL status_eager)
  message(FATAL_ERROR "graph and eager runs differ (status ${status_graph} / ${status_eager})\n"
                      "--- graph\n${out_graph}${err_graph}--- eager\n${out_eager}${err_eager}")
endif()
