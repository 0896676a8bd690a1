// fwfastgen.cu: fw-fast's general kernels (MODE_GEN: negative arcs, or
// distances too large for the fast modes), a module of their own, which
// the driver compiles only when a graph needs them (see fwfast.cu).
#define FF_GENERAL
#include "common.cuh"
#include "fwfast.cu"
