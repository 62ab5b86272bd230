// timerfd (Linux), which Glibc's Swift module leaves out.
#ifndef CTIMERFD_SHIM_H
#define CTIMERFD_SHIM_H

#include <sys/timerfd.h>

#endif
