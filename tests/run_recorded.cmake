# The differential test over programs that export nothing (docs/compiled_code.md): every
# tests/lang and examples program with a graph function, and generated programs
# (tests/fuzz/graph_program.h), run by weft_record, which compiles each graph they traced with
# its first call's inputs, outputs and variable values as a case. The generated code is built
# once for all of them; each compiled output must agree with the graph's.
# Arguments: -DWEFT=... -DRECORD=weft_record -DSOURCE_DIR=the repository -DWORK=a scratch folder
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/gen ${WORK}/got)
file(GLOB programs ${SOURCE_DIR}/tests/lang/*.model ${SOURCE_DIR}/examples/*.model)
set(names "")
set(super "cmake_minimum_required(VERSION 3.16)\nproject(recorded_tests CXX)\n")
foreach(p ${programs})
  file(READ ${p} text)
  if(NOT text MATCHES "@function")
    continue()
  endif()
  get_filename_component(name ${p} NAME_WE)
  set(name rec_${name})
  run(${RECORD} ${WORK} ${name} ${p})
  message("${name}: ${last_output}")
  list(APPEND names ${name})
endforeach()
run(${RECORD} ${WORK} rec_generated --generated 16)
message("rec_generated: ${last_output}")
list(APPEND names rec_generated)
foreach(name ${names})
  string(APPEND super "add_subdirectory(${name})\n")
endforeach()
file(WRITE ${WORK}/gen/CMakeLists.txt "${super}")
# At -O1: this test is the code generator's breadth (some 190 graphs), and -O1 halves their
# compile time; compiled/differential builds its programs as users do, at -O3.
# Some thirty programs: the runtime's headers are precompiled once for all of them.
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" -DWEFT_PRECOMPILE_HEADERS=ON)
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)
set(count 0)
foreach(name ${names})
  compare_cases(${WORK} ${name} ${SOURCE_DIR}/tests/compile/compare.model count)
endforeach()
message("${count} compiled outputs of recorded graph calls agree with the graphs'")
