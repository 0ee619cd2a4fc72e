// Compiles the tests' precompiled header (tests/CMakeLists.txt, dp_test_pch);
// the tests reuse it and never link this library.
