//go:build cuda

package rtc

// NVRTC, the CUDA run-time compiler, loaded with dlopen when first needed,
// so that a cuda build starts and runs everything else on a machine that
// has the NVIDIA driver but no CUDA toolkit: there is no link-time
// dependency on libnvrtc.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef int (*pn_version_t)(int *, int *);
typedef int (*pn_create_t)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*pn_compile_t)(void *, int, const char *const *);
typedef int (*pn_size_t)(void *, size_t *);
typedef int (*pn_get_t)(void *, char *);
typedef int (*pn_destroy_t)(void **);
typedef const char *(*pn_errstr_t)(int);

static pn_version_t pn_version;
static pn_create_t pn_create;
static pn_compile_t pn_compile;
static pn_size_t pn_logsize, pn_ptxsize;
static pn_get_t pn_log, pn_ptx;
static pn_destroy_t pn_destroy;
static pn_errstr_t pn_errstr;

// pn_open loads libnvrtc from path and resolves the entry points; 0 on
// success, -1 when the library is not there, -2 when a symbol is missing.
static int pn_open(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return -1;
	pn_version = (pn_version_t)dlsym(h, "nvrtcVersion");
	pn_create = (pn_create_t)dlsym(h, "nvrtcCreateProgram");
	pn_compile = (pn_compile_t)dlsym(h, "nvrtcCompileProgram");
	pn_logsize = (pn_size_t)dlsym(h, "nvrtcGetProgramLogSize");
	pn_log = (pn_get_t)dlsym(h, "nvrtcGetProgramLog");
	pn_ptxsize = (pn_size_t)dlsym(h, "nvrtcGetPTXSize");
	pn_ptx = (pn_get_t)dlsym(h, "nvrtcGetPTX");
	pn_destroy = (pn_destroy_t)dlsym(h, "nvrtcDestroyProgram");
	pn_errstr = (pn_errstr_t)dlsym(h, "nvrtcGetErrorString");
	if (!pn_version || !pn_create || !pn_compile || !pn_logsize || !pn_log || !pn_ptxsize || !pn_ptx || !pn_destroy || !pn_errstr) {
		dlclose(h);
		return -2;
	}
	return 0;
}

static int pn_get_version(int *major, int *minor) { return pn_version(major, minor); }

static const char *pn_error(int r) { return pn_errstr(r); }

// pn_run compiles src; *ptx and *log are malloc'd (the caller frees them).
// It returns the NVRTC result of the first failing step; *stage names it.
static int pn_run(const char *src, const char *name, int nopts, const char **opts,
                  char **ptx, char **log, const char **stage) {
	void *prog = 0;
	size_t n = 0;
	*ptx = 0;
	*log = 0;
	*stage = "nvrtcCreateProgram";
	int r = pn_create(&prog, src, name, 0, 0, 0);
	if (r) return r;
	*stage = "nvrtcCompileProgram";
	int cr = pn_compile(prog, nopts, (const char *const *)opts);
	if (pn_logsize(prog, &n) == 0 && n > 1) {
		*log = (char *)calloc(n + 1, 1);
		if (*log) pn_log(prog, *log);
	}
	if (cr) {
		pn_destroy(&prog);
		return cr;
	}
	*stage = "nvrtcGetPTX";
	r = pn_ptxsize(prog, &n);
	if (!r) {
		*ptx = (char *)calloc(n + 1, 1);
		r = *ptx ? pn_ptx(prog, *ptx) : 1;
	}
	pn_destroy(&prog);
	return r;
}
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unsafe"
)

// nvrtcState is the outcome of loading libnvrtc, once per process.
var nvrtcState struct {
	once    sync.Once
	path    string // the library loaded
	version string
	missing string // what was looked for, when nothing loaded
}

// nvrtcNames are the libraries tried: the unversioned name (toolkit
// installs), then the sonames of CUDA 13, 12 and 11 (runtime-only
// installs), each also under CUDA_HOME and /usr/local/cuda.
func nvrtcNames() []string {
	names := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}
	var all []string
	all = append(all, names...)
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if dir == "" {
			continue
		}
		for _, n := range names {
			all = append(all, filepath.Join(dir, "lib64", n))
		}
	}
	return all
}

func loadNVRTC() {
	s := &nvrtcState
	tried := nvrtcNames()
	for _, name := range tried {
		cs := C.CString(name)
		r := C.pn_open(cs)
		C.free(unsafe.Pointer(cs))
		if r == 0 {
			var major, minor C.int
			C.pn_get_version(&major, &minor)
			s.path, s.version = name, fmt.Sprintf("%d.%d", major, minor)
			// Loaded is not enough: it must compile a trivial kernel (for
			// the default arch, or the newer one a CUDA 13 NVRTC needs).
			_, log, _, err := compileArch(context.Background(), nvrtcCompiler{}, "probe",
				"__global__ void pathnotes_probe(int *a) { a[threadIdx.x] = 1; }\n", CompileOptions{Arch: defaultArch}, true)
			if err != nil {
				s.missing = nvrtcCompiler{}.describe() + ": loaded but cannot compile a trivial kernel: " + strings.TrimSpace(err.Error()+" "+log)
			}
			return
		}
	}
	s.missing = "NVRTC: libnvrtc not found (tried " + strings.Join(tried[:4], ", ") + " on the loader's path, CUDA_HOME/lib64 and /usr/local/cuda/lib64)"
}

// nvrtc returns the run-time compiler, loading it on first use.
func nvrtc() compiler {
	nvrtcState.once.Do(loadNVRTC)
	return nvrtcCompiler{}
}

type nvrtcCompiler struct{}

func (nvrtcCompiler) available() string { return nvrtcState.missing }

func (nvrtcCompiler) describe() string {
	return "NVRTC " + nvrtcState.version + " (" + nvrtcState.path + ")"
}

// hostInclude matches the includes a course kernel has that NVRTC does
// not need and cannot open (it declares printf itself, and has no host
// headers); they become blank lines, so that line numbers stay.
var hostInclude = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*[<"](stdio\.h|cstdio|cuda_runtime\.h|cuda\.h|cuda_runtime_api\.h|device_launch_parameters\.h)[>"][ \t]*$`)

func (nvrtcCompiler) compile(ctx context.Context, name, source string, opts CompileOptions) (string, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	source = hostInclude.ReplaceAllString(source, "")
	args := append([]string{"--gpu-architecture=" + opts.Arch}, opts.Flags...)
	cargs := make([]*C.char, len(args))
	for i, a := range args {
		cargs[i] = C.CString(a)
		defer C.free(unsafe.Pointer(cargs[i]))
	}
	csrc, cname := C.CString(source), C.CString("cell.cu")
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cname))
	var ptx, log *C.char
	var stage *C.char
	var argv **C.char
	if len(cargs) > 0 {
		// The options live in Go memory that holds no Go pointers, as cgo
		// allows for the duration of the call.
		argv = &cargs[0]
	}
	r := C.pn_run(csrc, cname, C.int(len(cargs)), argv, &ptx, &log, &stage)
	defer C.free(unsafe.Pointer(ptx))
	defer C.free(unsafe.Pointer(log))
	logText := strings.TrimSpace(C.GoString(log))
	if r != 0 {
		err := fmt.Errorf("%s: %s", C.GoString(stage), C.GoString(C.pn_error(r)))
		if logText == "" {
			return "", "", err
		}
		return "", logText, err
	}
	return C.GoString(ptx), "", nil
}
