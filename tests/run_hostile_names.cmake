# Hostile names (docs/robustness.md): what a program, a file name or a saved model supplies
# reaches generated C++, CMake and the terminal escaped, or is refused — and any valid Weft name
# builds. Saved models with control characters in their names are refused by weft show, weft
# compile and load; names that spell C++ or CMake (`*/`, quotes, `${}`, backticks, a newline in a
# file name), that clash with C and C++ (log, new, NULL, main, shape) or are very long are
# compiled, built once for all of them, and run; nothing they spell may run (no PWNED file).
# Arguments: -DWEFT=... -DSRC=tests/hostile -DFIXTURE=tests/fixtures/saved/demo -DWORK=a scratch folder
#            [-DGENERATE_ONLY=ON]
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/src ${WORK}/gen ${WORK}/out)
string(ASCII 1 2 3 4 5 6 7 8 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 127 controls)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

# The command exits 1 with an error matching `pattern`; nothing it printed holds a control byte.
function(refused what pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected exit 1 and an error matching '${pattern}', got ${rc}:\n${out}${err}")
  endif()
  if("${out}${err}" MATCHES "[${controls}]")
    message(FATAL_ERROR "${what}: the output holds a raw control byte:\n${out}${err}")
  endif()
endfunction()

# --- saved models with control characters in a name: refused everywhere, shown escaped ---
file(READ ${FIXTURE}/saved_model.yaml manifest)
file(READ ${FIXTURE}/graphs/addprint.txt graph)
set(k 0)
# bad(WHAT FROM TO SHOWN): the fixture with FROM replaced by TO, refused with an error showing SHOWN.
function(bad what from to shown)
  math(EXPR k "${k} + 1")
  set(k ${k} PARENT_SCOPE)
  set(dir ${WORK}/bad${k})
  file(COPY ${FIXTURE}/ DESTINATION ${dir})
  string(REPLACE "${from}" "${to}" text "${manifest}")
  if(text STREQUAL manifest)
    message(FATAL_ERROR "${what}: the test's replacement did not apply")
  endif()
  file(WRITE ${dir}/saved_model.yaml "${text}")
  refused("weft show (${what})" "contains a control character \\(${shown} at byte" ${WEFT} show ${dir} --all)
  refused("weft compile (${what})" "contains a control character" ${WEFT} compile ${dir} -o ${WORK}/gen_bad${k})
  if(EXISTS ${WORK}/gen_bad${k})
    message(FATAL_ERROR "weft compile (${what}) wrote ${WORK}/gen_bad${k}")
  endif()
  file(WRITE ${WORK}/load${k}.model "m = load(\"${dir}\")\n")
  refused("load (${what})" "cannot load .*contains a control character" ${WEFT} run ${WORK}/load${k}.model)
endfunction()
bad("variable name" "  - name: demo_module/x\n"
    "  - name: \"demo_module/x\\ninline static const int p = std::system(\\\"touch PWNED\\\")\\n//\"\n" "\\\\x0a")
bad("module name" "    name: demo_module\n    path" "    name: \"demo\\e(0\\0module\"\n    path" "\\\\x1b")
bad("function name" "  - name: addprint\n" "  - name: \"add\\u009bprint\"\n" "\\\\u009b")
bad("input name" "{name: a," "{name: \"a\\tb\"," "\\\\x09")
bad("module type" "  - type: DemoModule\n" "  - type: \"Demo\\rModule\"\n" "\\\\x0d")
bad("variable key" "    key: x\n" "    key: \"x\\0\"\n" "\\\\x00")

# A graph file's source locations land in comments and error strings of the generated code.
set(dir ${WORK}/graph_locations)
file(COPY ${FIXTURE}/ DESTINATION ${dir})
string(REPLACE "\"save.model\"" "\"*/ \\\\ evil\\x0a#error injected \\x22\"" text "${graph}")
file(WRITE ${dir}/graphs/addprint.txt "${text}")
run(${WEFT} compile ${dir} -o ${WORK}/gen/graph_locations --main)
file(READ ${WORK}/gen/graph_locations/serving_default.cpp code)
if(NOT code MATCHES "// add -> f32\\[\\]   \\( \\\\\\\\ evil\\\\\\\\x0a#error injected \\\\\"")
  message(FATAL_ERROR "a graph's source location is not escaped in the generated code:\n${code}")
endif()

# --- valid names hostile to C++ and CMake: compiled, built once, run ---
run(${WEFT} run ${SRC}/names.model ${WORK}/out)  # writes out/1, a saved model
execute_process(COMMAND ${WEFT} show ${WORK}/out/1 --all RESULT_VARIABLE rc OUTPUT_VARIABLE shown)
if(NOT rc EQUAL 0 OR NOT shown MATCHES "\\*/ \" \\\\ \\$\\{PWD\\} # `touch PWNED`")
  message(FATAL_ERROR "weft show did not print the hostile names as they are (${rc}):\n${shown}")
endif()
set(evil "evil\nexecute_process(COMMAND touch PWNED)\n# \${x} `touch PWNED` \"")
file(READ ${SRC}/tiny.model tiny)
file(READ ${SRC}/names.model names)
file(WRITE ${WORK}/src/${evil}.model "${tiny}")
string(REPLACE "export(f)" "export(f, name=\"exp2\")" tiny_exp2 "${tiny}")  # CMake's targets are global
file(WRITE ${WORK}/src/log.model "${tiny_exp2}")
file(WRITE ${WORK}/src/new.model "${names}")
run(${WEFT} compile "${WORK}/src/${evil}.model" -o ${WORK}/gen/evil --main)
run(${WEFT} compile ${WORK}/src/log.model -o ${WORK}/gen/log --main)
run(${WEFT} compile ${WORK}/src/new.model -o ${WORK}/gen/new --main)
run(${WEFT} compile ${WORK}/out/1 -o ${WORK}/gen/saved --main)
file(READ ${WORK}/gen/evil/CMakeLists.txt lists)
if(NOT lists MATCHES "^# Generated by `weft compile` from [^\n]*/evil\\\\x0aexecute_process\\(COMMAND touch PWNED\\)\\\\x0a# ")
  message(FATAL_ERROR "the file name is not escaped in the generated CMakeLists.txt:\n${lists}")
endif()
file(READ ${WORK}/gen/saved/CMakeLists.txt lists)
if(NOT lists MATCHES "project\\(model_1 CXX\\)")
  message(FATAL_ERROR "a saved model's folder 1 does not give the namespace model_1:\n${lists}")
endif()
file(WRITE ${WORK}/gen/CMakeLists.txt "cmake_minimum_required(VERSION 3.16)\nproject(hostile CXX)\n"
           "add_subdirectory(evil)\nadd_subdirectory(log)\nadd_subdirectory(new)\nadd_subdirectory(saved)\n"
           "add_subdirectory(graph_locations)\n")
if(GENERATE_ONLY)  # a sanitized build of weft (tests/CMakeLists.txt)
  return()
endif()
# The runtime's headers precompiled once for the five programs, as tests/run_compiled.cmake does.
run(${CMAKE_COMMAND} -S ${WORK}/gen -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_PRECOMPILE_HEADERS=ON
    WORKING_DIRECTORY ${WORK})
run(${CMAKE_COMMAND} --build ${WORK}/build -j2 WORKING_DIRECTORY ${WORK})

# Each export of names.model, from the program and from its saved model, computes what eager did.
foreach(driver new/shape_main new/NULL__main new/main__main saved/int__main saved/new__main saved/assert__main)
  string(REPLACE "/" "_" o ${driver})
  run(${WORK}/build/${driver} ${WORK}/out/in0.npy ${WORK}/out/in1.npy ${WORK}/out/in2.npy ${WORK}/out/${o}.npy
      WORKING_DIRECTORY ${WORK})
  run(${WEFT} run ${SRC}/../compile/compare.model ${WORK}/out/expected.npy ${WORK}/out/${o}.npy)
endforeach()
run(${WORK}/build/evil/f_main ${WORK}/out/in0.npy ${WORK}/out/evil.npy)
run(${WORK}/build/log/exp2__main ${WORK}/out/in0.npy ${WORK}/out/log.npy)
# Generated drivers: an output whose element count overflows int64 is an error and writes no
# file; a FIFO as input is refused rather than waited on.
foreach(case wide tall)
  execute_process(COMMAND ${WORK}/build/new/mm_main ${WORK}/out/${case}_a.npy ${WORK}/out/${case}_b.npy
                          ${WORK}/out/${case}_c.npy RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "output 0" OR EXISTS ${WORK}/out/${case}_c.npy)
    message(FATAL_ERROR "mm_main on ${case} inputs did not fail cleanly (${rc}): ${err}")
  endif()
endforeach()
# Inputs whose sizes disagree fail the call before any output is sized from them: the products
# [3e9, 0] @ [2, 4] and [2, 3] @ [0, 2**40] would be 48 GB and 8 TiB, the sum [3e9, 0] + [2, 4] 48 GB.
function(sizes_refused fn in pattern)
  execute_process(COMMAND ${WORK}/build/new/${fn}_main ${WORK}/out/${in}_a.npy ${WORK}/out/${in}_b.npy
                          ${WORK}/out/${fn}_${in}_c.npy RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "^${fn}: [^\n]*${pattern}" OR EXISTS ${WORK}/out/${fn}_${in}_c.npy)
    message(FATAL_ERROR "${fn}_main on ${in} inputs did not fail on their sizes (${rc}): ${err}")
  endif()
endfunction()
sizes_refused(mm rows "matmul: sizes 0 and 2 differ")
sizes_refused(mm cols "matmul: sizes 3 and 0 differ")
sizes_refused(sum2 rows "add: sizes [0-9]+ and [0-9]+ do not broadcast")
run(mkfifo ${WORK}/out/fifo.npy)
execute_process(COMMAND ${WORK}/build/new/mm_main ${WORK}/out/fifo.npy ${WORK}/out/tall_b.npy ${WORK}/out/fifo_c.npy
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 1 OR NOT err MATCHES "fifo.npy': not a regular file")
  message(FATAL_ERROR "mm_main did not refuse a FIFO (${rc}): ${err}")
endif()

file(GLOB_RECURSE pwned ${WORK}/PWNED)
if(pwned)
  message(FATAL_ERROR "a name ran as code: ${pwned}")
endif()
