#!/bin/sh
# Writes the PTX of the profile suite's kernels (gpu/cells/profile_suite_test.go):
# each .cu here is a %%cuda cell of a notebook, compiled as the cell
# compiles (the file named "cell", so that .loc gives the cell's lines),
# with line information, for compute_52 by nvcc 11.8.
set -e
cd "$(dirname "$0")"
for f in *.cu; do
	{ printf '#line 1 "cell"\n'; cat "$f"; } >"/tmp/profile-$$.cu"
	nvcc ${NVCC_CCBIN:+-ccbin "$NVCC_CCBIN"} -ptx -arch=compute_52 -O3 -lineinfo -Wno-deprecated-gpu-targets \
		-o "${f%.cu}.ptx" "/tmp/profile-$$.cu"
	rm -f "/tmp/profile-$$.cu"
	# nvcc makes "cell" a path below the working directory: keep the name.
	sed -i 's|"[^"]*/cell"|"cell"|' "${f%.cu}.ptx"
done
