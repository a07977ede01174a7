# The .deb (scripts/package.sh): CPack's DEB generator, with dpkg-shlibdeps
# computing the library dependencies of the installed binaries.
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE KDELAY_DEB_ARCH
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kdelay)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "kdelay developers <kdelay@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kdelay_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Not a library dependency: BCC compiles against some kernel header tree
# (Debian's meta package of the architecture; Ubuntu's generic one). On
# x86-64 kdelay brings its own (bpf/bcc_tree/).
if(NOT KDELAY_DEB_ARCH STREQUAL "amd64")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "linux-headers-${KDELAY_DEB_ARCH} | linux-headers-generic")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "per-thread kernel delay reports from eBPF")
# CPack puts the summary first and indents these lines itself.
set(CPACK_PACKAGE_DESCRIPTION "kdelay tells, thread by thread, where a process's time went: syscalls,
running, waiting for a CPU and behind whom, blocked and who woke it,
stopped, interrupts, block I/O, locks and memory reclaim. It is a drop-in
for Open vSwitch's kernel_delay.py, and also records SPDK qpair lifetimes,
annotates SPDK traces and prints biosnoop's per-I/O lines.")
# The settings file is a conffile; the scripts reload systemd and make a
# purge leave nothing (packaging/debian/).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${CMAKE_SOURCE_DIR}/packaging/debian/conffiles;${CMAKE_SOURCE_DIR}/packaging/debian/postinst;${CMAKE_SOURCE_DIR}/packaging/debian/prerm;${CMAKE_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Packaging installs what is built; it builds nothing more (the tests).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
include(CPack)
