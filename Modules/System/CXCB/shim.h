// XCB and the extensions screen capture uses, for Swift: MIT-SHM (images
// through shared memory), XFixes (the cursor image), DAMAGE (what changed)
// and RandR (monitors). System V shared memory comes with it.
#ifndef CXCB_SHIM_H
#define CXCB_SHIM_H

#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <xcb/xfixes.h>
#include <xcb/damage.h>
#include <xcb/randr.h>

// The extensions' descriptors are C globals; these keep Swift from touching
// shared mutable state directly.
static inline const xcb_query_extension_reply_t *cxcb_shm_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_shm_id);
}
static inline const xcb_query_extension_reply_t *cxcb_xfixes_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_xfixes_id);
}
static inline const xcb_query_extension_reply_t *cxcb_damage_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_damage_id);
}
static inline const xcb_query_extension_reply_t *cxcb_randr_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_randr_id);
}

#endif
