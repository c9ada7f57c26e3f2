# The README's first program prints what its comments say: each `# prints X` and the comment of
# each `print(...)` line is a line of its output, in order. Its last line is an error on
# purpose (examples/signature_error.model): the program runs without it.
# -DWEFT, -DREADME, -DWORK (a scratch folder).
file(READ ${README} text)
string(FIND "${text}" "```\n" open)
math(EXPR open "${open} + 4")
string(SUBSTRING "${text}" ${open} -1 rest)
string(FIND "${rest}" "```" close)
string(SUBSTRING "${rest}" 0 ${close} block)
string(REGEX REPLACE "\n[^\n]*\n$" "\n" program "${block}")  # without its last line
set(expected "")
string(REPLACE "\n" ";" lines "${program}")
foreach(line IN LISTS lines)
  if(line MATCHES "# prints (.*)$")
    string(APPEND expected "${CMAKE_MATCH_1}\n")
  elseif(line MATCHES "^print\\(.*# (.*)$")
    string(APPEND expected "${CMAKE_MATCH_1}\n")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/readme_demo.model "${program}")
execute_process(COMMAND ${WEFT} run readme_demo.model WORKING_DIRECTORY ${WORK}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "README's program: status ${status}\n--- its comments say\n${expected}--- it prints\n${out}${err}")
endif()
