#pragma once

// DP_VECTOR_CLONES: marks a host loop to be compiled for AVX-512, AVX2 and
// baseline x86-64, the loader picking the widest this CPU runs. The engine
// is built for baseline x86-64, where the memory-bound host loops ran 2-3x
// slower (4-wide SSE). Each CPU always runs the same clone, so a machine's
// bits do not change run to run.
//
// The pick is an ifunc resolver that the dynamic loader runs before any
// sanitizer runtime starts; ThreadSanitizer instruments the resolver and it
// crashes there, so TSan builds (scripts/tsan: threads, not ISAs) compile
// the baseline loop only.
#if defined(__SANITIZE_THREAD__)
#define DP_VECTOR_CLONES
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DP_VECTOR_CLONES
#endif
#endif
#ifndef DP_VECTOR_CLONES
#define DP_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
