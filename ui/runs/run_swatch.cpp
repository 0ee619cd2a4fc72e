#include "run_swatch.h"

#include <QPainter>
#include <QPixmap>

namespace {

constexpr int kSide = 16;

void paintClockFace(QPainter& painter)
{
    const QRectF face(3.5, 3.5, kSide - 7, kSide - 7);
    painter.setPen(QPen(Qt::black, 1.2));
    painter.setBrush(Qt::white);
    painter.drawEllipse(face);
    const QPointF centre = face.center();
    painter.drawLine(centre, centre - QPointF(0, face.height() / 2 - 1.5));  // minute hand at 12
    painter.drawLine(centre, centre + QPointF(face.width() / 2 - 2, 0));    // hour hand at 3
}

}  // namespace

QIcon runSwatch(const QColor& color, bool past)
{
    QPixmap pixmap(kSide, kSide);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRect(0, 0, kSide, kSide), color);
    if (past)
        paintClockFace(painter);
    painter.end();
    return QIcon(pixmap);
}
