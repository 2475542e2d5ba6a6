#include "picture_export.h"

#include "matrix_view.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImageWriter>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

#include <algorithm>

namespace tp {

QPixmap settledGrab(QWidget* widget) {
    const auto views = widget->findChildren<MatrixView*>();
    const auto rendering = [&] {
        return std::any_of(views.begin(), views.end(),
                           [](MatrixView* v) { return v->isRendering(); });
    };
    QPixmap shot;
    for (int round = 0; round < 20; ++round) {
        shot = widget->grab();
        if (!rendering())
            break;
        QElapsedTimer waited;
        waited.start();
        while (rendering() && waited.elapsed() < 10000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return shot;
}

namespace {

bool writeSvg(QWidget* widget, const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(widget->window()->windowTitle());
    svg.setDescription(QStringLiteral("tpviz %1").arg(QCoreApplication::applicationVersion()));
    {
        QPainter painter(&svg);
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    }
    if (file.error() != QFileDevice::NoError) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

}  // namespace

bool writePicture(QWidget* widget, const QString& path, QString* error) {
    const QPixmap shot = settledGrab(widget);
    if (QFileInfo(path).suffix().compare(QLatin1String("svg"), Qt::CaseInsensitive) == 0)
        return writeSvg(widget, path, error);
    QImageWriter writer(path);
    if (writer.write(shot.toImage()))
        return true;
    if (error)
        *error = writer.errorString();
    return false;
}

}  // namespace tp
