# Writes OUT: a C++ table {name, text} of every SRC_DIR/*.model file.
file(GLOB models ${SRC_DIR}/*.model)
list(SORT models)
set(body "#include \"embedded.h\"\nnamespace weft {\nconst EmbeddedFile kStdlibFiles[] = {\n")
foreach(m ${models})
  get_filename_component(name ${m} NAME_WE)
  file(READ ${m} text)
  # A raw string literal cannot hold its own delimiter; the stdlib never contains it.
  string(APPEND body "  {\"${name}\", R\"__weft__(${text})__weft__\"},\n")
endforeach()
string(APPEND body "  {nullptr, nullptr}};\n}\n")
file(WRITE ${OUT} "${body}")
