#pragma once

// The window as a picture file: PNG (pixels) or SVG (vector shapes, text as text).

#include <QString>

class QPixmap;
class QWidget;

namespace tp {

/// Grabs `widget` as pixels once no matrix view inside it is still rendering its image on a
/// worker thread (each grab starts the renders its paint needs; it waits up to 10 s per round),
/// so the picture shows every matrix rather than the blank before its first image.
QPixmap settledGrab(QWidget* widget);

/// Writes `widget` to `path` after settledGrab: as SVG through QSvgGenerator when the suffix is
/// .svg (case-insensitive; size and view box the widget's logical size, text kept as text), else
/// through QImageWriter, whose format follows the suffix (PNG for .png). Returns false on failure,
/// with the reason in `error` (if given), e.g. "Permission denied".
bool writePicture(QWidget* widget, const QString& path, QString* error = nullptr);

}  // namespace tp
