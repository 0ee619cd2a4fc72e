#pragma once

#include <QDoubleSpinBox>
#include <QLocale>

// A decimal number in as few digits as it takes, the way it was typed:
// 0.2, not 0.2000, and -0.000001, not -0.000000 or -1e-06.
class DecimalSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;

    QString textFromValue(double value) const override
    {
        return locale().toString(value, 'f', QLocale::FloatingPointShortest);
    }
};
