// The source of the target weft_runtime_headers, whose only product is the precompiled
// precompiled.h (WEFT_PRECOMPILE_HEADERS); generated programs reuse it.
