#include "prediction_strip.h"

#include <QPainter>

#include <algorithm>

namespace {

constexpr int kMargin = 4;
// Between images, and so between their captions, which never run into each other.
constexpr int kGap = 12;
constexpr int kMinTile = 40;

const QColor kCorrect(0x2e, 0x7d, 0x32);
const QColor kWrong(0xc6, 0x28, 0x28);

// One test image as grey levels: channel 0, values in [0, 1].
QImage toImage(const dp::PredictionSamples& samples, int index)
{
    QImage image(samples.width, samples.height, QImage::Format_Grayscale8);
    const std::size_t plane = std::size_t(samples.height) * std::size_t(samples.width);
    const float* pixels =
        samples.images.data() + std::size_t(index) * std::size_t(samples.channels) * plane;
    for (int y = 0; y < samples.height; ++y) {
        uchar* row = image.scanLine(y);
        for (int x = 0; x < samples.width; ++x)
            row[x] = uchar(std::clamp(pixels[y * samples.width + x], 0.0f, 1.0f) * 255.0f + 0.5f);
    }
    return image;
}

}  // namespace

PredictionStrip::PredictionStrip(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("predictionStrip"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setToolTip(tr("Test images after the latest epoch: the model's prediction, green when "
                  "right, red with the true label when wrong"));
}

void PredictionStrip::setClassNames(const QStringList& names)
{
    classNames_ = names;
    update();
}

int PredictionStrip::correctCount() const
{
    return int(std::count_if(tiles_.begin(), tiles_.end(),
                             [](const Tile& tile) { return tile.predicted == tile.label; }));
}

QSize PredictionStrip::sizeHint() const
{
    return {600, 2 * kMargin + fontMetrics().height() + kGap / 2 + 72 + captionHeight()};
}

QSize PredictionStrip::minimumSizeHint() const
{
    return {200, 2 * kMargin + fontMetrics().height() + kGap / 2 + kMinTile + captionHeight()};
}

void PredictionStrip::showPredictions(const dp::PredictionSamples& samples)
{
    const std::size_t count = std::min(samples.predicted.size(), samples.labels.size());
    const std::size_t imageSize =
        std::size_t(samples.channels) * std::size_t(samples.height) * std::size_t(samples.width);
    if (imageSize == 0 || samples.images.size() < count * imageSize)
        return;
    tiles_.clear();
    for (std::size_t i = 0; i < count; ++i)
        tiles_.push_back({toImage(samples, int(i)), samples.predicted[i], samples.labels[i]});
    epoch_ = samples.epoch;
    update();
}

void PredictionStrip::clear()
{
    tiles_.clear();
    epoch_ = 0;
    update();
}

QString PredictionStrip::className(int label) const
{
    return label >= 0 && label < classNames_.size() ? classNames_[label] : QString::number(label);
}

void PredictionStrip::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetrics metrics = fontMetrics();
    if (tiles_.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Test images with the model's predictions appear here after each epoch"));
        return;
    }

    const int heading = metrics.height();
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(area.left(), area.top(), area.width(), heading),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     tr("After epoch %1: %2 of %3 right")
                         .arg(epoch_)
                         .arg(correctCount())
                         .arg(tiles_.size()));

    const QRect tilesArea(area.left(), area.top() + heading + kGap / 2, area.width(),
                          area.height() - heading - kGap / 2);
    const Grid grid = layOut(tilesArea);
    // Crisp pixels: the images are 28 x 28 scaled up, as matplotlib shows them.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const int captionLine = metrics.height();
    for (int i = 0; i < int(tiles_.size()); ++i) {
        const QRect cell(tilesArea.left() + (i % grid.columns) * (grid.cellWidth + kGap),
                         tilesArea.top() + (i / grid.columns) * (grid.side + captionHeight() + kGap),
                         grid.cellWidth, grid.side + captionHeight());
        if (cell.right() > tilesArea.right() || cell.bottom() > tilesArea.bottom())
            break;  // the rest does not fit: drop it rather than clip it
        const Tile& tile = tiles_[std::size_t(i)];
        const QRect imageRect(cell.left() + (cell.width() - grid.side) / 2, cell.top(), grid.side,
                              grid.side);
        painter.drawImage(imageRect, tile.image);
        const bool right = tile.predicted == tile.label;
        painter.setPen(QPen(right ? kCorrect : kWrong, 2));
        painter.drawRect(imageRect.adjusted(0, 0, -1, -1));

        // Within the cell, so neighbouring captions keep kGap between them.
        const QRect caption(cell.left(), imageRect.bottom() + 3, cell.width(), captionLine);
        painter.setPen(right ? kCorrect : kWrong);
        painter.drawText(caption, Qt::AlignHCenter | Qt::AlignTop,
                         metrics.elidedText(className(tile.predicted), Qt::ElideRight,
                                            caption.width()));
        if (!right) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(caption.translated(0, captionLine), Qt::AlignHCenter | Qt::AlignTop,
                             metrics.elidedText(trueLabelText(tile), Qt::ElideRight,
                                                caption.width()));
        }
    }
}

int PredictionStrip::captionHeight() const
{
    return 2 * fontMetrics().height() + 3;
}

QString PredictionStrip::trueLabelText(const Tile& tile) const
{
    return tr("(%1)").arg(className(tile.label));
}

PredictionStrip::Grid PredictionStrip::layOut(const QRect& area) const
{
    const QFontMetrics metrics = fontMetrics();
    // A few pixels of slack: elidedText can want a little more than the advance.
    int widestCaption = 0;
    for (const Tile& tile : tiles_) {
        widestCaption = std::max(widestCaption, metrics.horizontalAdvance(className(tile.predicted)) + 4);
        if (tile.predicted != tile.label)
            widestCaption = std::max(widestCaption, metrics.horizontalAdvance(trueLabelText(tile)) + 4);
    }
    // As many rows as make the images largest: one row on a wide strip, two
    // or more where the Classroom tab leaves height to spare.
    const int count = int(tiles_.size());
    Grid best{count, 0, 0};
    for (int rows = 1; rows <= count; ++rows) {
        const int columns = (count + rows - 1) / rows;
        const int cellRoom = (area.width() - (columns - 1) * kGap) / columns;
        const int byHeight = (area.height() - rows * captionHeight() - (rows - 1) * kGap) / rows;
        const int side = std::min(cellRoom, byHeight);
        if (side > best.side) {
            // A cell is as wide as its image, or its caption where there is room.
            best = {columns, side, std::max(side, std::min(cellRoom, widestCaption))};
        }
    }
    if (best.side < kMinTile)
        best = {best.columns, kMinTile, std::max(kMinTile, best.cellWidth)};
    return best;
}
