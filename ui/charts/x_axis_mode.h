#pragma once

// What the charts' x axes count: epochs, or training seconds (d2l's Timer),
// so that "accuracy against time" is one switch away.
enum class XAxisMode { epochs, seconds };
