/*
 * cuda.h: a compatibility shim that lets gorgonia.org/cu v0.9.6 build
 * against CUDA 13 headers. Put this directory first on the C include path:
 *
 *     CGO_CFLAGS="-I$PWD/gpu/cudacompat" go build -tags cuda
 *
 * It includes the real cuda.h (the next one on the include path) and, from
 * CUDA 13 on, points five names whose signatures CUDA 13 changed back at
 * the older entry points, which the driver library still exports under
 * their old symbol names:
 *
 *     cuCtxCreate             CUDA 13: cuCtxCreate_v4 (takes CUctxCreateParams)
 *                             here: symbol cuCtxCreate_v2 (flags, device)
 *     cuMemAdvise             CUDA 13: takes a CUmemLocation
 *                             here: symbol cuMemAdvise (takes a CUdevice)
 *     cuMemPrefetchAsync      CUDA 13: takes a CUmemLocation and flags
 *                             here: symbol cuMemPrefetchAsync (CUdevice, stream)
 *     cuGraphAddDependencies  CUDA 13: takes edge data
 *     cuGraphGetEdges         CUDA 13: returns edge data
 *                             here: their symbols without edge data
 *
 * and one more whose signature did not change: CUDA 13's cuda.h maps
 * cuEventElapsedTime to cuEventElapsedTime_v2 (CUDA 12.8 on), which older
 * driver libraries lack; the original symbol keeps the binary linkable
 * against, and runnable with, any libcuda (a build machine's may be older
 * than the headers).
 *
 * Each old entry point is declared under a name of our own bound to the
 * old symbol with an asm label, so the declaration cannot clash with
 * whatever the real header declares. With CUDA 11.x and 12.x headers the
 * shim changes nothing. pathnotes itself calls none of these five; they
 * only have to compile.
 */
#ifndef PATHNOTES_CUDACOMPAT_CUDA_H
#define PATHNOTES_CUDACOMPAT_CUDA_H

#include_next <cuda.h>

#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000

#ifdef __cplusplus
extern "C" {
#endif

CUresult CUDAAPI pathnotes_cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
    __asm__("cuCtxCreate_v2");
CUresult CUDAAPI pathnotes_cuMemAdvise_v1(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
    __asm__("cuMemAdvise");
CUresult CUDAAPI pathnotes_cuMemPrefetchAsync_v1(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
    __asm__("cuMemPrefetchAsync");
CUresult CUDAAPI pathnotes_cuGraphAddDependencies_v1(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies)
    __asm__("cuGraphAddDependencies");
CUresult CUDAAPI pathnotes_cuGraphGetEdges_v1(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges)
    __asm__("cuGraphGetEdges");
CUresult CUDAAPI pathnotes_cuEventElapsedTime_v1(float *pMilliseconds, CUevent hStart, CUevent hEnd)
    __asm__("cuEventElapsedTime");

#ifdef __cplusplus
}
#endif

#undef cuCtxCreate
#define cuCtxCreate pathnotes_cuCtxCreate_v2
#undef cuMemAdvise
#define cuMemAdvise pathnotes_cuMemAdvise_v1
#undef cuMemPrefetchAsync
#define cuMemPrefetchAsync pathnotes_cuMemPrefetchAsync_v1
#undef cuGraphAddDependencies
#define cuGraphAddDependencies pathnotes_cuGraphAddDependencies_v1
#undef cuGraphGetEdges
#define cuGraphGetEdges pathnotes_cuGraphGetEdges_v1
#undef cuEventElapsedTime
#define cuEventElapsedTime pathnotes_cuEventElapsedTime_v1

#endif /* CUDA_VERSION >= 13000 */
#endif /* PATHNOTES_CUDACOMPAT_CUDA_H */
