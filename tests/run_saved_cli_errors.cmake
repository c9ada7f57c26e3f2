# `weft show DIR`, `weft graph DIR SIG` and `weft compile DIR` report a fault in a saved model's
# manifest or graph text as SPEC §10 says: FILE:LINE:COL: error: MESSAGE, the line and a caret;
# each exits 1 and compile writes nothing.
# Arguments: -DWEFT=... -DFIXTURES=tests/fixtures/saved -DWORK=a scratch folder
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# expect(FIXTURE WHERE MESSAGE LINE CARET): every command on fixture FIXTURE prints, first, the
# error MESSAGE at WHERE (FILE:LINE:COL below the fixture), then LINE and CARET.
function(expect fixture where message line caret)
  set(dir ${FIXTURES}/${fixture})
  set(expected "${dir}/${where}: error: ${message}\n  ${line}\n  ${caret}\n")
  foreach(command "show;${dir};--all" "graph;${dir};serving_default" "compile;${dir};-o;${WORK}/${fixture}")
    execute_process(COMMAND ${WEFT} ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(REPLACE ";" " " shown "${command}")
    if(NOT rc EQUAL 1 OR NOT err STREQUAL expected)
      message(FATAL_ERROR "weft ${shown}: expected exit 1 and\n${expected}got ${rc}:\n${err}")
    endif()
  endforeach()
  if(EXISTS ${WORK}/${fixture})
    message(FATAL_ERROR "weft compile ${dir} wrote ${WORK}/${fixture}")
  endif()
endfunction()

expect(future saved_model.yaml:2:10 "unknown format version 3 (this weft reads version 1)"
       "version: 3" "         ^")
expect(duplicate_key saved_model.yaml:16:5 "variable 'demo_module/x' has 'file' more than once"
       "  - name: demo_module/x" "    ^")
expect(escape saved_model.yaml:25:11
       "file name '../../../../etc/passwd' leaves the saved model's folder ('..' component)"
       "    file: ../../../../etc/passwd" "          ^")
expect(bad_graph graphs/addprint.txt:2:8 "unknown op 'frobnicate'" "  %1 = frobnicate(%0) : f32[]" "       ^")
