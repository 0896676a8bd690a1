// <cuda_runtime_api.h> in a %%cuda cell compiled by clang: what kernels use of it comes from pathnotes_cuda.h.
#pragma once
