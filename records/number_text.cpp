#include "number_text.h"

#include <QLocale>

#include <charconv>

QString numberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString numberText(float value)
{
    // Qt's shortest form is for doubles; widening 0.2f first would print 0.20000000298023224.
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return QString::fromLatin1(text, result.ptr - text);
}
