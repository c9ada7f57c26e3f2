# examples/char_gpt compiled (docs/attention.md): gpt_exports.model, made small, through weft
# compile; the interpreter writes its cases twice (graph functions, then
# eagerly); tests/compile/char_gpt_check.cpp, linked to the generated library, compares generate
# with its KV cache and train_step with them, and counts allocations. The generated code is built
# once. A sanitized build of weft (-DGENERATE_ONLY=ON) compiles and writes the cases only.
# Arguments: -DWEFT=... -DDIR=examples/char_gpt -DSRC=tests/compile -DWORK=a scratch folder
#            [-DGENERATE_ONLY=ON]
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)  # run()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/graph ${WORK}/eager)
file(COPY ${DIR}/gpt.model ${DIR}/main.cpp ${DIR}/CMakeLists.txt DESTINATION ${WORK})
# The example's sizes, made small for the test's time: 2 blocks, d_model 16, 2 heads, context 16,
# batch 4.
file(READ ${DIR}/gpt_exports.model source)
set(sizes "layers, d_model, heads, context, batch = 4, 128, 4, 128, 32")
string(FIND "${source}" "${sizes}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "gpt_exports.model has no line '${sizes}'")
endif()
string(REPLACE "${sizes}" "layers, d_model, heads, context, batch = 2, 16, 2, 16, 4" source "${source}")
file(WRITE ${WORK}/gpt_exports.model "${source}")

run(${WEFT} compile ${WORK}/gpt_exports.model -o ${WORK}/generated)
run(${WEFT} run ${WORK}/gpt_exports.model ${WORK}/graph)
run(${WEFT} run --run-functions-eagerly ${WORK}/gpt_exports.model ${WORK}/eager)
if(GENERATE_ONLY)
  return()
endif()
# The example's CMakeLists.txt builds its program; the check is built beside it.
file(APPEND ${WORK}/CMakeLists.txt "add_executable(char_gpt_check ${SRC}/char_gpt_check.cpp)\n"
                                   "target_link_libraries(char_gpt_check PRIVATE gpt_exports)\n")
run(${CMAKE_COMMAND} -S ${WORK} -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)
run(${WORK}/build/char_gpt_check ${WORK}/graph ${WORK}/eager)
message("${last_output}")

# The example's program: a few steps on the fortunes, then bytes sampled after the prompt; and
# the error of a missing corpus.
run(${WORK}/build/char_gpt_compiled --steps 3 --bytes 6 --batch 4 --context 16)
message("${last_output}")
if(NOT last_output MATCHES "step 3/3: loss [0-9.]+\ntrain step: [0-9.]+ ms \\(median of 3\\), [0-9.]+ ms of CPU \\(mean of steps 2-3\\)\nsampled: \\(1\\) Avoi......\ngenerate: [0-9]+ tokens/s \\(13 positions, one call each\\), [0-9]+ per second of CPU")
  message(FATAL_ERROR "char_gpt_compiled did not train and sample")
endif()
execute_process(COMMAND ${WORK}/build/char_gpt_compiled --corpus ${WORK}/nowhere RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot read .*/nowhere/art \\(the corpus is Debian's fortunes: sudo apt-get install fortunes\\)")
  message(FATAL_ERROR "a missing corpus was not reported (${rc}): ${err}")
endif()
