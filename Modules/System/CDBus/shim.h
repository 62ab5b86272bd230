// libdbus-1 for Swift: the XDG desktop portal is reached through it.
#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
