# `weft graph NAME.model FN` in DIR, FN read from NAME.fn: stdout must equal NAME.out and stderr
# NAME.err (when present, else empty; with an error the status must be 1); -o NAME.dot's text
# must equal NAME.dot when that file is present. With -DDRAW=ext it also
# draws the graph to a file of that extension and checks the file's first bytes.
file(READ ${DIR}/${NAME}.fn fn)
string(STRIP "${fn}" fn)
execute_process(COMMAND ${WEFT} graph ${NAME}.model ${fn} WORKING_DIRECTORY ${DIR}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 120)
set(expected_err "")
set(expected_status 0)
if(EXISTS ${DIR}/${NAME}.err)
  file(READ ${DIR}/${NAME}.err expected_err)
  set(expected_status 1)
endif()
file(READ ${DIR}/${NAME}.out expected_out)
if(NOT out STREQUAL expected_out OR NOT err STREQUAL expected_err OR NOT status STREQUAL expected_status)
  message(FATAL_ERROR "weft graph ${NAME}: status ${status}\n--- expected\n${expected_out}${expected_err}"
                      "--- actual\n${out}${err}")
endif()
# NAME.dot, when present, is the expected DOT text of the picture (its module boxes).
if(EXISTS ${DIR}/${NAME}.dot)
  execute_process(COMMAND ${WEFT} graph ${NAME}.model ${fn} -o ${WORK}/${NAME}.actual.dot WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE status ERROR_VARIABLE err TIMEOUT 120)
  file(READ ${DIR}/${NAME}.dot expected_dot)
  file(READ ${WORK}/${NAME}.actual.dot actual_dot)
  if(NOT status EQUAL 0 OR NOT actual_dot STREQUAL expected_dot)
    message(FATAL_ERROR "weft graph ${NAME} -o .dot: status ${status}\n${err}--- expected\n${expected_dot}--- actual\n${actual_dot}")
  endif()
endif()
if(DRAW)
  set(picture ${WORK}/${NAME}.${DRAW})
  execute_process(COMMAND ${WEFT} graph ${NAME}.model ${fn} -o ${picture} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  file(READ ${picture} head LIMIT 8 HEX)
  if(NOT status EQUAL 0 OR NOT (head MATCHES "^89504e47" OR head MATCHES "^3c3f786d" OR head MATCHES "^64696772"))
    message(FATAL_ERROR "weft graph ${NAME} -o ${picture}: status ${status}, starts with ${head}\n${err}")
  endif()
endif()
