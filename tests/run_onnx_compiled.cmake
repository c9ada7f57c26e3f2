# ONNX's conformance tests compiled (docs/onnx.md): weft_onnx_conformance writes a program that
# runs a sample of the tests that pass (at least one per op they use) with call() a graph function
# and checks each against ONNX's expected outputs; weft_record records and compiles every graph
# it traces; the generated code is built once, and each compiled output must agree with the
# graph's (compare.model), so with ONNX's.
# Arguments: -DWEFT=... -DRECORD=weft_record -DCONFORMANCE=weft_onnx_conformance -DDATA=the test
# data -DSOURCE_DIR=the repository -DWORK=a scratch folder -DSIZE=the sample's size
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/gen ${WORK}/got)
run(${CONFORMANCE} ${DATA} ${SOURCE_DIR}/tests/onnx/expected_failures.txt --write-sample ${WORK}/sample.model ${SIZE})
run(${WEFT} run ${WORK}/sample.model)
message("${last_output}")
run(${RECORD} ${WORK} onnx_sample ${WORK}/sample.model)
message("${last_output}")
file(WRITE ${WORK}/gen/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.16)\nproject(onnx_tests CXX)\nadd_subdirectory(onnx_sample)\n")
# At -O1, as compiled/recorded builds its graphs: this test is breadth, not speed.
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" -DWEFT_PRECOMPILE_HEADERS=ON)
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)
set(count 0)
compare_cases(${WORK} onnx_sample ${SOURCE_DIR}/tests/compile/compare.model count)
message("${count} compiled outputs of ONNX tests agree with their graphs'")
