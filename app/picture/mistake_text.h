#pragma once

// The words the picture says about a scene's mistake (mistakes.h): what the wrong code does, in
// the titles of the arrays it makes and beside them.

#include "scene/scene.h"

#include <QString>

namespace tp {

/// "sum-groups", "bias-per-partial", ... as the Mistake combo lists them.
QString mistakeName(Mistake mistake);

/// Beside the outputs (HTML): what the mistake computes and what the split needs instead, with
/// the scene's shapes, e.g. for sum-groups "the groups' (2, 4) outputs are added into one block
/// ... y is their concatenation, (2, 12)"; empty without a mistake.
QString mistakeWarning(const Scene& scene);

/// The warning's headline alone (HTML), in its red: "✘ Mistake init-per-group: each group builds
/// its own nnx.Linear ...", with the words the Mistake combo's tooltip uses; empty without one.
QString mistakeHeadline(const Scene& scene);

/// The title of group `group`'s block (column mode) or partial sum (row mode) when the mistake
/// computes it differently from the split (bias-per-partial, init-per-group, slice-x), e.g.
/// "block 1 = x[:, 2:4] @ kernel[2:4, 4:8] + bias[4:8]  (2, 4)", "partial of group 1 +
/// bias  (2, 12)"; empty when it is the right one.
QString mistakePartialTitle(const Scene& scene, int group);

/// Row mode: the title of the output y when the mistake ends the pass differently, e.g.
/// "y = sum  (2, 12), bias 3 times"; empty otherwise.
QString mistakeOutputTitle(const Scene& scene);

/// Under x and the bias in the layer: where the mistake reads the layer wrongly (HTML); empty
/// when it reads it as the split does.
QString mistakeLayerNote(const Scene& scene);

}  // namespace tp
