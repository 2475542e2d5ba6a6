#pragma once

// Large matrices in fresh memory. A matrix of many MiB comes from pages the process has never
// touched, and its first write pays a page fault for each 4 KiB; marked for transparent huge pages
// it pays one for each 2 MiB.

#include "layer/eigen_types.h"

namespace tp {

/// An uninitialised (rows, cols) matrix. On Linux its memory is marked for transparent huge
/// pages (madvise MADV_HUGEPAGE) before anything touches it, which makes the first write of a
/// large array (the kernel, the partials of a split) several times cheaper in page faults.
Matrix uninitializedMatrix(Index rows, Index cols);

}  // namespace tp
