#pragma once

// The python3 with numpy that checks our .npy files the way their users read them.

#include "process_run.h"

#include <QString>
#include <QStringList>

namespace tp::test {

/// Whether any python3 is installed (on PATH or /usr/bin/python3): without one a numpy check
/// skips, with one that cannot import numpy it fails (cmake/install-deps.sh installs
/// python3-numpy).
bool pythonPresent();

/// The first python3 that imports numpy: the one on PATH, else the system's (a PATH python3 from a
/// version manager may lack the Debian package). Empty when none does. Probed once per process.
QString pythonWithNumpy();

/// Runs `python3 -c script args...` with pythonWithNumpy().
ProcessRun runNumpy(const QString& script, const QStringList& args);

}  // namespace tp::test
