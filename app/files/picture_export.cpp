#include "picture_export.h"

#include "io/binary_file.h"
#include "io/staged_file.h"
#include "matrix_view.h"

#include <QAbstractItemView>
#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QMenuBar>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QTabBar>
#include <QWidget>

#include <algorithm>
#include <utility>
#include <vector>

namespace tp {

QImage settledGrab(QWidget* widget) {
    const auto views = widget->findChildren<MatrixView*>();
    const auto rendering = [&] {
        return std::any_of(views.begin(), views.end(),
                           [](MatrixView* v) { return v->isRendering(); });
    };
    // The picture's pixels are allocated here, once, and checked: QWidget::grab() paints on
    // when its pixmap could not be allocated, and a style then crashes on the missing device.
    const qreal dpr = widget->devicePixelRatioF();
    QImage shot(widget->size() * dpr, QImage::Format_ARGB32_Premultiplied);
    if (shot.isNull())
        return shot;
    shot.setDevicePixelRatio(dpr);
    for (int round = 0; round < 20; ++round) {
        shot.fill(Qt::transparent);
        widget->render(&shot);
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

/// Widgets whose style paints past their own rectangle and counts on the paint device to clip it
/// (the selected tab fills down into the page under it, a selected row runs under the scroll
/// bar), or that draw nothing through QSvgGenerator (the menu bar). QSvgGenerator writes no clip
/// paths, so in an SVG these are drawn as pictures of themselves: the menu bar, tab bars, and the
/// viewports of item views.
std::vector<QWidget*> clippedByStyle(QWidget* widget) {
    std::vector<QWidget*> widgets;
    for (QMenuBar* bar : widget->findChildren<QMenuBar*>())
        widgets.push_back(bar);
    for (QTabBar* bar : widget->findChildren<QTabBar*>())
        widgets.push_back(bar);
    for (QAbstractItemView* view : widget->findChildren<QAbstractItemView*>())
        widgets.push_back(view->viewport());
    return widgets;
}

/// Swallows the paint events of the widgets it is installed on.
class PaintSwallower : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject*, QEvent* event) override { return event->type() == QEvent::Paint; }
};

bool isSvg(const QString& path) {
    return QFileInfo(path).suffix().compare(QLatin1String("svg"), Qt::CaseInsensitive) == 0;
}

void writeSvg(QWidget* widget, QIODevice* file) {
    QSvgGenerator svg;
    svg.setOutputDevice(file);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    // The screen's resolution, not the generator's 72 dpi default: styles and fonts measure
    // against the paint device, and at another resolution the tab bar grows over the view below.
    svg.setResolution(widget->logicalDpiX());
    svg.setTitle(widget->window()->windowTitle());
    svg.setDescription(QStringLiteral("tpviz %1").arg(QCoreApplication::applicationVersion()));
    {
        const std::vector<QWidget*> pictures = clippedByStyle(widget);
        std::vector<std::pair<QPoint, QPixmap>> grabs;
        for (QWidget* child : pictures)
            if (child->isVisible())
                grabs.emplace_back(child->mapTo(widget, QPoint()), child->grab());
        PaintSwallower swallower;
        for (QWidget* child : pictures)
            child->installEventFilter(&swallower);
        QPainter painter(&svg);
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
        for (QWidget* child : pictures)
            child->removeEventFilter(&swallower);
        for (const auto& [at, pixmap] : grabs)
            painter.drawPixmap(at, pixmap);
    }
}

// The reason of a StagedFile's sentence, which starts with the path the caller names itself.
QString reasonOf(const std::string& sentence, const std::string& path) {
    const std::string named = path + ": ";
    return QString::fromStdString(sentence.rfind(named, 0) == 0 ? sentence.substr(named.size())
                                                                : sentence);
}

}  // namespace

QString pictureFileProblem(const QString& path) {
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    QStringList formats;
    for (const QByteArray& format : QImageWriter::supportedImageFormats())
        formats << QString::fromLatin1(format).toLower();
    if (suffix != QLatin1String("svg") && !formats.contains(suffix))
        return QStringLiteral(
                   "%1 is not a picture format tpviz writes; end the name with .png or .svg (or "
                   "one of %2)")
            .arg(suffix.isEmpty() ? QStringLiteral("a name without an extension")
                                  : QLatin1Char('.') + suffix,
                 formats.join(QStringLiteral(", ")));
    if (!info.absoluteDir().exists())
        return QStringLiteral("its folder %1 does not exist").arg(info.absolutePath());
    if (info.isDir())
        return QStringLiteral("cannot be written: it is a folder");
    const std::string file = path.toStdString();
    StagedFile probe(file);
    if (const std::string problem = probe.write({}); !problem.empty())
        return reasonOf(problem, file);
    probe.discard();
    return {};
}

bool writePicture(QWidget* widget, const QString& path, QString* error) {
    const auto fail = [&](const QString& reason) {
        if (error)
            *error = reason;
        return false;
    };
    if (const QString problem = pictureFileProblem(path); !problem.isEmpty())
        return fail(problem);
    const QImage shot = settledGrab(widget);
    if (shot.isNull())
        return fail(QStringLiteral("not enough memory for a picture of %1 x %2 pixels")
                        .arg(widget->width())
                        .arg(widget->height()));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (isSvg(path)) {
        writeSvg(widget, &buffer);
    } else {
        QImageWriter writer(&buffer, QFileInfo(path).suffix().toLower().toLatin1());
        if (!writer.write(shot))
            return fail(writer.errorString());
    }
    const std::string file = path.toStdString();
    if (const std::string problem =
            writeWholeFile(file, {std::string_view(bytes.constData(), bytes.size())});
        !problem.empty())
        return fail(reasonOf(problem, file));
    return true;
}

}  // namespace tp
