// The instantiations instances.h declares: each header's WEFT_RT_INSTANCE lines, defined here once
// for the interpreter and for each generated program.
#define WEFT_RT_INSTANTIATE
#include "attention.h"
#include "conv.h"
#include "conv_grad.h"
#include "layer_norm.h"
#include "matmul.h"
#include "reduce.h"
