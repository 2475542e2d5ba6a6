#pragma once

// Application-wide setup and the --screenshot mode.

#include "command_line.h"

#include <QSize>

namespace tp {

/// The window size a --screenshot renders at, in logical pixels.
inline constexpr QSize kScreenshotSize{1600, 1000};

/// Names the application (for QSettings), sets its version and window icon.
void initApplication();

/// Renders a MainWindow (without settings) for the command line's scene at its --step (default:
/// the last, or the --scene file's step), offscreen at kScreenshotSize, and writes the picture
/// (PNG, or SVG for a .svg file; MainWindow::saveScreenshot). Returns the process exit code:
/// 0 written, 1 the file could not be written.
int runScreenshot(const AppCommandLine& line);

}  // namespace tp
