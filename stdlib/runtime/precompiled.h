// The runtime headers a generated program's files include that take the longest to parse (Eigen
// and the kernels on it): with WEFT_PRECOMPILE_HEADERS on, its CMakeLists precompiles them once,
// in the target weft_runtime_headers, for every program of the build (at -O1 they were two
// thirds of an export file's compile time). Nothing here may depend on a macro that differs
// between programs.
#ifndef WEFT_RT_PRECOMPILED_H
#define WEFT_RT_PRECOMPILED_H

#include "attention.h"
#include "binary.h"
#include "compiled.h"
#include "conv.h"
#include "conv_grad.h"
#include "copy.h"
#include "gelu.h"
#include "layer_norm.h"
#include "layout_ops.h"
#include "matmul.h"
#include "reduce.h"
#include "thread_pool.h"
#include "unary.h"

#endif  // WEFT_RT_PRECOMPILED_H
