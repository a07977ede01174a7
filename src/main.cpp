#include "app/app.h"

int main(int argc, char** argv) { return kdelay::run_app(argc, argv); }
