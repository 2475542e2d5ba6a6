#pragma once

// How a rank's process allocates, so that what it times is a training step's steady state.
//
// glibc gives every allocation of 128 KiB and up its own mapping and returns freed memory at the
// top of the heap to the kernel, so each pass's buffers, and the temporary buffers Open MPI
// allocates inside a reduction, were fresh pages that the kernel maps and zeroes on first touch.
// A 1 MiB reduce-scatter on 2 ranks took 769 µs on them and 240 µs from a heap that keeps its
// pages; the calibration's repeated calls of 16 MiB paid the same way. A framework's caching
// allocator keeps its pages from step to step, and the cost model predicts such a warm step. So
// a rank allocates everything from its heap (no mapping of its own), and keeps up to
// 1 GiB of freed heap: the same as
//   GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1073741824
// The ranks and the calibration both run this way; a user's own glibc.malloc tunables are kept.

namespace tp::mpi {

/// Sets the allocation policy above; call before MPI_Init. Does nothing when GLIBC_TUNABLES
/// names a glibc.malloc tunable.
void keepFreedPages();

}  // namespace tp::mpi
