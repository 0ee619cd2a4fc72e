#pragma once

#include <QtTest>

#include "chart_board.h"

// A chart board at a usual size, on screen, for the chart tests; its charts
// and legend found by object name.
struct ShownBoard {
    ShownBoard()
    {
        board.resize(1000, 640);
        board.show();
        QVERIFY(QTest::qWaitForWindowExposed(&board));
    }

    template <typename Widget>
    Widget* chart(const char* name)
    {
        return board.findChild<Widget*>(QLatin1String(name));
    }

    ChartBoard board;
};
