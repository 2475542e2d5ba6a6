#pragma once

// The window as a picture file: PNG (pixels) or SVG (vector shapes, text as text).

#include <QString>

class QImage;
class QWidget;

namespace tp {

/// Grabs `widget` as pixels once no matrix view inside it is still rendering its image on a
/// worker thread (each grab starts the renders its paint needs; it waits up to 10 s per round),
/// so the picture shows every matrix rather than the blank before its first image. A null image
/// when its pixels cannot be allocated.
QImage settledGrab(QWidget* widget);

/// Why `path` cannot take a picture, in words (the path left to the caller), or "": its suffix is
/// neither .svg nor a format QImageWriter writes, or a file cannot be made there (a missing folder,
/// a folder of that name, /proc), found by making and removing a temporary beside it.
QString pictureFileProblem(const QString& path);

/// Writes `widget` to `path` after settledGrab: as SVG through QSvgGenerator when the suffix is
/// .svg (case-insensitive; size and view box the widget's logical size, text kept as text), else
/// through QImageWriter in the suffix's format (PNG for .png). The picture goes through a
/// StagedFile (a temporary renamed over `path` once whole), so a failure never leaves half a file
/// and a link at `path` is replaced by the picture, never written through. Returns false on failure
/// (pictureFileProblem's, or the write's), with the reason in `error` (if given), e.g. "No such
/// file or directory".
bool writePicture(QWidget* widget, const QString& path, QString* error = nullptr);

}  // namespace tp
