#pragma once

// Sums of group products over a whole output, by tiles the threads share: out = the sum over the
// groups, in order, of a[:, group g's terms] @ b[the same terms, :], each group's product summed
// apart and then added to the sum of the groups before it. The row split's output (x @ kernel,
// the groups owning rows of the kernel) and the column split's dx in the backward (dy @ kernel^T,
// the groups owning columns of the kernel) are such sums; nothing of a group's own product is
// stored, and groupProduct makes it again with the bits that were added.

#include "layer/eigen_types.h"
#include "layer/partials.h"
#include "layer/products.h"
#include "layer/progress.h"
#include "layer/sharding_plan.h"

#include <functional>
#include <vector>

namespace tp {

/// A block of an output: the rows and columns it covers.
struct OutputTile {
    IndexRange rows, cols;
};

/// Called on the thread that summed a tile, with the tile and its block of the output.
using TileDone = std::function<void(const OutputTile&, Eigen::Ref<Matrix>)>;

/// out = the sums above, a (N, K) and b (K, M) as it is or transposed; group g sums the terms
/// [bounds[g], bounds[g + 1]), bounds[0] = 0 and bounds.back() = K. `out` is a fresh (N, M) matrix
/// (uninitializedMatrix), whose pages each thread maps before it writes them. The tiles (at most
/// 256 rows by 480 columns, or 1024 columns for at most kFewRows rows) run on the threads by
/// sumGroupProducts (layer/products.h), or for at most kFewRows rows by products of few rows added
/// in order; an element's bits depend only on its row of a, its column of b and the bounds. After
/// each tile, `done` (where given) on the same thread; tiles not started when `progress` is
/// cancelled are skipped, and `units` units of progress are advanced over the tiles.
void sumGroupsByTiles(Matrix& out, const MatrixCRef& a, const ProductFactor& b,
                      const std::vector<Index>& bounds, Progress* progress = nullptr,
                      Index units = 0, const TileDone& done = {});

/// The bounds of the sum a split's groups make: {0, the end of group 0's terms, ...}, the terms
/// being the kernel rows a row split's groups own, or the kernel columns a column split's own.
std::vector<Index> groupBounds(const ShardingPlan& plan);

/// The groups' partials of such a sum, none stored: group g's, a[:, its terms] @ b[its terms, :],
/// is made on first read (groupProduct) with the bits the sum added. a's and b's memory must
/// outlive them, unchanged.
Partials groupSumPartials(const MatrixCRef& a, const ProductFactor& b, std::vector<Index> bounds);

/// a @ b as one group's product of such a sum (bounds {0, K}): the bits a sum added for it. An
/// element's bits depend only on its row of a and column of b, so a block of rows or columns has
/// the bits of the whole product's. out (N, M) may be a block of a larger matrix.
void groupProduct(const MatrixCRef& a, const ProductFactor& b, Eigen::Ref<Matrix> out);

/// The same as a new matrix.
Matrix groupProduct(const MatrixCRef& a, const ProductFactor& b);

}  // namespace tp
