// <stdio.h> in a %%cuda cell compiled by clang: printf comes from pathnotes_cuda.h.
#pragma once
