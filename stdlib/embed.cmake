# Writes OUT: C++ tables {name, text} of every SRC_DIR/*.model file (the standard library) and of
# every SRC_DIR/runtime/*.h kernel header, *.cpp file and *.cmake file (copied beside the C++ that
# weft compile emits).
function(embed_table var glob key)
  file(GLOB files ${glob})
  list(SORT files)
  set(t "const EmbeddedFile ${var}[] = {\n")
  foreach(f ${files})
    get_filename_component(name ${f} ${key})
    file(READ ${f} text)
    # A raw string literal cannot hold its own delimiter; no embedded file contains it.
    string(APPEND t "  {\"${name}\", R\"__weft__(${text})__weft__\"},\n")
  endforeach()
  string(APPEND t "  {nullptr, nullptr}};\n")
  set(table "${t}" PARENT_SCOPE)
endfunction()
embed_table(kStdlibFiles "${SRC_DIR}/*.model" NAME_WE)
set(body "#include \"embedded.h\"\nnamespace weft {\n${table}")
embed_table(kRuntimeFiles "${SRC_DIR}/runtime/*.h;${SRC_DIR}/runtime/*.cpp;${SRC_DIR}/runtime/*.cmake" NAME)
string(APPEND body "${table}}\n")
file(WRITE ${OUT} "${body}")
