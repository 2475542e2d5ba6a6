#pragma once

// Application-wide setup, the window's first scene from the command line, and the --screenshot
// mode.

#include "command_line.h"

#include <QSize>

namespace tp {

class MainWindow;

/// The window size a --screenshot renders at, in logical pixels.
inline constexpr QSize kScreenshotSize{1600, 1000};

/// Names the application (for QSettings), sets its version and window icon.
void initApplication();

/// Shows the command line's scene in `window`: a scene file as File > Open scene shows it (its
/// config, mistake, backward pass and step, with the options given beside it over them, e.g.
/// --backward), other scene options as given, else the window's own (saved) scene stays; then
/// --view and the note of a moved tp_size.
void showCommandLine(MainWindow& window, const AppCommandLine& line);

/// Renders a MainWindow (without settings) for the command line's scene at its --step (default:
/// the last, or the --scene file's step), offscreen at kScreenshotSize, and writes the picture
/// (PNG, or SVG for a .svg file; MainWindow::saveScreenshot, through a temporary renamed into
/// place). A file that cannot take a picture (pictureFileProblem: an unknown extension, a missing
/// folder, a folder of that name) is refused before the scene is computed. Returns the process exit
/// code: 0 written, 2 refused or not written (the reason on stderr), as for other invalid input.
int runScreenshot(const AppCommandLine& line);

}  // namespace tp
