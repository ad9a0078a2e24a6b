// Shared by the CPU benchmarks that time minitvm kernels interleaved with oneDNN primitives.
//
// GNU OpenMP's workers spin about 300,000 iterations (milliseconds) after each parallel region
// before they block; interleaved with our kernels they take a core from whatever is timed after a
// oneDNN primitive. Our thread pool's workers spin 4096 pause instructions (~0.1 ms). libgomp reads
// GOMP_SPINCOUNT when it is loaded, so the benchmark re-executes itself once with the same spin for
// oneDNN's workers. A GOMP_SPINCOUNT or OMP_WAIT_POLICY set by the caller is kept.
#pragma once

#include <cstdlib>

#include <unistd.h>

namespace minitvm::bench {

inline void match_openmp_spin(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  setenv("GOMP_SPINCOUNT", "4096", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: then run with the default policy
}

}  // namespace minitvm::bench
