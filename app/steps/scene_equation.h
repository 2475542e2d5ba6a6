#pragma once

// The equation line of a computed scene, with the scene's mistake in it when it makes one.

#include "scene.h"

#include <string>

namespace tp {

/// What the equation line says at `step` of a computed scene: equationText(scene.config, step)
/// when the scene makes no mistake; with a mistake, the wrong computation as it is made:
/// mistakeStepEquation for a group's step, and row mode's closing step as the mistake ends it:
///   bias-per-partial: "y = sum   (2x12, the bias already in each of the 3 partial sums)"
///   concat-partials:  "y = concatenate(partial sums)   (2x36, the bias (12,) no longer fits)"
///   init-per-group:   "y = sum + own_bias   (2x12 + 12)"
/// The start and the collective's steps read as without the mistake.
std::string sceneEquation(const Scene& scene, int step);

/// The caption under the equation: stepCaption(scene.config, step), except at row mode's closing
/// step of a mistake that ends the pass otherwise, e.g. for bias-per-partial
///   "Step 5 of 12: no bias added here: it is already in each of the 4 partial sums".
std::string sceneCaption(const Scene& scene, int step);

}  // namespace tp
