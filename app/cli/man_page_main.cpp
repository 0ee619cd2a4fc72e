// dp-train-man: prints dp-train(1) for the build to install (app/CMakeLists.txt).
#include <cstdio>

#include "man_page.h"

int main(int argc, char** argv) {
    std::fputs(dp::cli_man_page(argc > 1 ? argv[1] : "").c_str(), stdout);
    return 0;
}
