// The source of the target weft_runtime_headers, whose only product is the precompiled
// precompiled.h its CMakeLists asks for; generated programs reuse it.
