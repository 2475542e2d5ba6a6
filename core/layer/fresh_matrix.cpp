#include "layer/fresh_matrix.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tp {

Matrix uninitializedMatrix(Index rows, Index cols) {
    Matrix m(rows, cols);
#if defined(MADV_HUGEPAGE)
    // Only whole pages inside the allocation, and only where they can hold a huge page (2 MiB);
    // smaller matrices are left alone.
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + kPage - 1) & ~(kPage - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(m.data() + m.size()) & ~(kPage - 1);
    if (end > begin && end - begin >= (std::uintptr_t(2) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint; may fail
#endif
    return m;
}

}  // namespace tp
