# Runs `WEFT MODE NAME.model` in DIR. Its stdout must equal DIR/NAME.out, which every test has
# (empty when nothing is printed: a test without one fails, so that nothing passes unchecked),
# and its stderr DIR/NAME.err (when present; else it must be empty). With a .err file that
# reports an error the exit status must be 1, else 0.
# MODE (default run) is the subcommand: tests/check runs `weft check`. EXPECT (default NAME) names
# the expected files, EXPECT.out, .err and .args, so that one program may have two tests.
if(NOT MODE)
  set(MODE run)
endif()
if(NOT EXPECT)
  set(EXPECT ${NAME})
endif()
# DIR/EXPECT.args, when present, holds options that go before the file (`--max-steps=1000`).
set(options "")
if(EXISTS ${DIR}/${EXPECT}.args)
  file(READ ${DIR}/${EXPECT}.args options)
  separate_arguments(options UNIX_COMMAND "${options}")
endif()
# DIR/NAME.argv, when present, holds the program's own arguments, after the file (its `args`).
set(argv "")
if(EXISTS ${DIR}/${NAME}.argv)
  file(READ ${DIR}/${NAME}.argv argv)
  separate_arguments(argv UNIX_COMMAND "${argv}")
endif()
# With WORK, the program runs in that scratch folder (a copy of it, made afresh), so that what it
# writes stays out of the source tree.
set(run_dir ${DIR})
if(WORK)
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  file(COPY ${DIR}/${NAME}.model DESTINATION ${WORK})
  set(run_dir ${WORK})
endif()
# Expected outputs print floats to their last digit, so they are made with one GEMM library, the
# same on every machine whatever its measured choice (docs/internals.md); tests/unit checks every
# library against Eigen's.
set(ENV{WEFT_GEMM} eigen)
# A program that hangs fails at 300 s; the longest (a data-parallel Fashion-MNIST run beside an
# unsharded one) takes 70 s alone and past 120 s on two cores shared with other tests.
execute_process(COMMAND ${WEFT} ${MODE} ${options} ${NAME}.model ${argv}
                WORKING_DIRECTORY ${run_dir}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status
                TIMEOUT 300)
if(NOT EXISTS ${DIR}/${EXPECT}.out)
  message(FATAL_ERROR "${NAME}: no expected output ${EXPECT}.out (create it, empty if nothing is printed)")
endif()
file(READ ${DIR}/${EXPECT}.out expected_out)
set(expected_err "")
set(expected_status 0)
if(EXISTS ${DIR}/${EXPECT}.err)
  file(READ ${DIR}/${EXPECT}.err expected_err)
  # A .err holding only warnings (a layout key that matched nothing) expects success.
  if(expected_err MATCHES "error: ")
    set(expected_status 1)
  endif()
endif()
set(problems "")
if(NOT status STREQUAL "${expected_status}")
  string(APPEND problems "exit status ${status}, expected ${expected_status}\n")
endif()
if(NOT out STREQUAL expected_out)
  string(APPEND problems "stdout differs from ${EXPECT}.out\n--- expected\n${expected_out}--- actual\n${out}")
endif()
if(NOT err STREQUAL expected_err)
  string(APPEND problems "stderr differs\n--- expected\n${expected_err}--- actual\n${err}")
endif()
if(problems)
  message(FATAL_ERROR "${NAME}: ${problems}")
endif()
