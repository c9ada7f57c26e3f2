// The runtime's heaviest kernels for float and double are compiled once, in instances.cpp, not
// in every file that includes them: each such header ends with WEFT_RT_INSTANCE(declaration)
// lines, an `extern template` declaration everywhere but in instances.cpp, which defines
// WEFT_RT_INSTANTIATE and so makes them the instantiations themselves. A generated program's
// export files then compile in a third of the time (Eigen's GEMM and the convolution tiles were
// two thirds of each). Other instantiations (integer GEMMs, per-op loops) stay where they are used.
#ifndef WEFT_RT_INSTANCES_H
#define WEFT_RT_INSTANCES_H

#ifdef WEFT_RT_INSTANTIATE
#define WEFT_RT_INSTANCE(...) template __VA_ARGS__;
#else
#define WEFT_RT_INSTANCE(...) extern template __VA_ARGS__;
#endif

#endif  // WEFT_RT_INSTANCES_H
