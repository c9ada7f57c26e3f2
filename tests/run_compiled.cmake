# The differential test of compiled code (docs/compiled_code.md): each tests/compile/*.model
# program is compiled with `weft compile --main` into one build folder — generated code is built
# once for all cases — and run twice by the interpreter (graph functions as graphs, then eagerly),
# writing its cases' inputs and outputs; each compiled driver's outputs must agree with both.
# Also built and run: tests/compile/alloc_test.cpp, the examples/compile_mlp program, and a saved
# Keras model compiled from its folder (tests/compile/saved/).
# A sanitized build of weft (-DGENERATE_ONLY=ON) compiles and runs the programs, and builds nothing.
# Arguments: -DWEFT=... -DSRC=tests/compile -DEXAMPLE=examples/compile_mlp -DWORK=a scratch folder
#            [-DGENERATE_ONLY=ON]
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/gen ${WORK}/cases ${WORK}/got)
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)

# Bad input first (it needs no build): a folder holding a user's file is refused and left as it
# was; a node whose sizes generated code cannot hold is named with its line; an unknown pass is a
# usage error.
file(MAKE_DIRECTORY ${WORK}/user)
file(WRITE ${WORK}/user/notes.txt "mine")
execute_process(COMMAND ${WEFT} compile ${SRC}/state.model -o ${WORK}/user RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${WORK}/user/notes.txt kept)
file(GLOB written ${WORK}/user/*)
list(LENGTH written n)
if(NOT rc EQUAL 1 OR NOT err MATCHES "holds other files" OR NOT kept STREQUAL "mine" OR NOT n EQUAL 1)
  message(FATAL_ERROR "a folder with other files was not refused (${rc}): ${err}")
endif()
execute_process(COMMAND ${WEFT} compile ${SRC}/errors/unsupported.model -o ${WORK}/unsupported
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "cond \\(at unsupported.model:4\\) cannot be compiled to C\\+\\+: its branches give results whose sizes may differ"
   OR EXISTS ${WORK}/unsupported)
  message(FATAL_ERROR "an unsupported op was not reported (${rc}): ${err}")
endif()
# Results a C++ signature cannot hold are refused at the export, as weft check reports them; and
# sharded exports share one state, on one mesh: exports on two meshes are refused.
foreach(bad "errors/identity|identity.model:3:1: error: export 'same' returns its inputs unchanged"
            "../check/export_results|export_results.model:8:1: error: export 'nothing' returns none"
            "errors/two_meshes|two_meshes.model:10:1: error: export 'triple' runs on mesh\\(batch=4\\) and another export of the program on mesh\\(batch=2\\)")
  string(REPLACE "|" ";" bad "${bad}")
  list(GET bad 0 program)
  list(GET bad 1 want)
  execute_process(COMMAND ${WEFT} compile ${SRC}/${program}.model -o ${WORK}/refused RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "${want}" OR EXISTS ${WORK}/refused)
    message(FATAL_ERROR "${program}.model was not refused as expected (${rc}): ${err}")
  endif()
endforeach()
execute_process(COMMAND ${WEFT} compile ${SRC}/state.model -o ${WORK}/x --dump-after=nothing
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown pass 'nothing'")
  message(FATAL_ERROR "an unknown pass was not refused (${rc}): ${err}")
endif()
execute_process(COMMAND ${WEFT} compile ${SRC}/mlp.model -o ${WORK}/dump --dump-after=fuse-epilogues
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "// after fuse-epilogues" OR NOT out MATCHES "epilogue = \"relu\"")
  message(FATAL_ERROR "--dump-after did not show the fused graph (${rc}): ${out}")
endif()

file(GLOB programs ${SRC}/*.model)
list(REMOVE_ITEM programs ${SRC}/compare.model)
set(super "cmake_minimum_required(VERSION 3.16)\nproject(compiled_tests CXX)\n")
foreach(p ${programs} ${EXAMPLE}/classifier.model)
  get_filename_component(name ${p} NAME_WE)
  get_filename_component(dir ${p} DIRECTORY)
  execute_process(COMMAND ${WEFT} compile ${p} -o ${WORK}/gen/${name} --main WORKING_DIRECTORY ${dir}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "weft compile ${name}.model failed:\n${err}")
  endif()
  string(APPEND super "add_subdirectory(${name})\n")
endforeach()
# A saved model compiled without its source: tests/compile/saved/keras_mlp.model saves one.
set(saved_cases ${WORK}/cases/keras_mlp/graph)
file(MAKE_DIRECTORY ${saved_cases})
run(${WEFT} run ${SRC}/saved/keras_mlp.model ${saved_cases})
run(${WEFT} compile ${saved_cases}/keras_mlp -o ${WORK}/gen/keras_mlp --main)
string(APPEND super "add_subdirectory(keras_mlp)\n")
string(APPEND super "add_executable(alloc_test ${SRC}/alloc_test.cpp)\n"
                    "target_link_libraries(alloc_test PRIVATE mlp control state cnn cnn_train ops)\n"
                    "add_executable(classifier_app ${EXAMPLE}/main.cpp)\n"
                    "target_link_libraries(classifier_app PRIVATE classifier)\n")
file(WRITE ${WORK}/gen/CMakeLists.txt "${super}")

foreach(p ${programs})
  get_filename_component(name ${p} NAME_WE)
  foreach(mode graph eager)
    set(cases ${WORK}/cases/${name}/${mode})
    file(MAKE_DIRECTORY ${cases})
    set(flag "")
    if(mode STREQUAL "eager")
      set(flag --run-functions-eagerly)
    endif()
    run(${WEFT} run ${flag} ${p} ${cases})
  endforeach()
endforeach()
if(GENERATE_ONLY)  # a sanitized build of weft (tests/CMakeLists.txt)
  return()
endif()

# Some twenty programs: the runtime's headers are precompiled once for all of them (a quarter of
# an export file's compile time at -O3; the code compiled is the same).
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_PRECOMPILE_HEADERS=ON)
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)
set(count 0)
set(COMPARE_THREADS 2 3)  # the differential suite at 1, 2 and 3 threads, compared bit for bit
foreach(p ${programs} keras_mlp)
  get_filename_component(name ${p} NAME_WE)
  compare_cases(${WORK} ${name} ${SRC}/compare.model count)
endforeach()
# A sharded export's input that its mesh cannot split evenly is an error of the call.
execute_process(COMMAND ${WORK}/build/data_parallel/dp_predict_main ${WORK}/cases/data_parallel/graph/uneven_batch.npy
                        ${WORK}/got/uneven.npy RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "dp_predict: input 'x' of shape \\[7, 8\\] does not split evenly on mesh\\(batch=2\\) along dimension 0")
  message(FATAL_ERROR "an uneven batch was not refused (${rc}): ${err}")
endif()
# An Embedding's negative id is an error of the call, as in the interpreter.
execute_process(COMMAND ${WORK}/build/embedding_ids/embed_ids_main ${WORK}/cases/embedding_ids/graph/negative_id.npy
                        ${WORK}/got/negative_id.npy RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "embed_ids: <stdlib>/nn.model:[0-9]+: index -1 is out of range for axis 0")
  message(FATAL_ERROR "a negative id was not refused (${rc}): ${err}")
endif()
# A failing assert or error() on a graph value ends the call with the interpreter's error line,
# its message's quotes, backslashes, comment ends and newline as written.
foreach(bad "checked|not_positive|checks.model:6:10: error: assertion failed: x \"must\" be \\\\ positive \\*/ /\\* see\nthe docs\n$"
            "checked|too_large|checks.model:7:23: error: too large: \"\\*/ \\?\\?= \\\\n\n$"
            "rooted|negative|checks.model:14:43: error: rooted: negative values\n$")
  string(REPLACE "|" ";" bad "${bad}")
  list(GET bad 0 export)
  list(GET bad 1 input)
  list(GET bad 2 want)
  execute_process(COMMAND ${WORK}/build/checks/${export}_main ${WORK}/cases/checks/graph/${input}.npy ${WORK}/got/${input}.npy
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "(^|/)${want}")
    message(FATAL_ERROR "a failing check did not end the call as expected (${rc}): ${err}")
  endif()
endforeach()
# A sharded driver's --threads bounds the cores its devices compute on (at 1 they take turns,
# each lending its core while it waits at a collective: the runs at WEFT_NUM_THREADS=1 above); a
# count outside 1 to 4096 is refused.
execute_process(COMMAND ${WORK}/build/data_parallel/dp_predict_main --threads 0 ${WORK}/cases/data_parallel/graph/uneven_batch.npy
                        ${WORK}/got/uneven.npy RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--threads: a thread count must be 1 to 4096, not 0")
  message(FATAL_ERROR "--threads 0 was not refused by a sharded driver (${rc}): ${err}")
endif()
# A count that is not a whole number is a usage error, in either kind of driver (not read as its
# leading digits, or as 0).
foreach(bad "data_parallel/dp_predict_main|--threads|4abc" "data_parallel/dp_predict_main|--time|abc"
            "checks/checked_main|--threads|-1x" "checks/checked_main|--time|1e3")
  string(REPLACE "|" ";" bad "${bad}")
  list(GET bad 0 driver)
  list(GET bad 1 option)
  list(GET bad 2 count)
  execute_process(COMMAND ${WORK}/build/${driver} ${option} ${count} ${WORK}/cases/checks/graph/not_positive.npy
                          ${WORK}/got/bad_count.npy RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "usage: ")
    message(FATAL_ERROR "${driver} ${option} ${count} was not refused (${rc}): ${err}")
  endif()
endforeach()
run(${WORK}/build/alloc_test)
message("${last_output}")
run(${WORK}/build/classifier_app)
message("${last_output}")
message("${count} compiled outputs agree with eager and graph results")
