// What the capture benchmark shows on screen: an X11 client drawing on the
// root window, so a "changing desktop" changes the way a busy one does.
#ifndef RAW_PAINTER_H
#define RAW_PAINTER_H

typedef struct raw_painter raw_painter;

/// Connects to `display`. NULL on failure.
raw_painter *raw_painter_create(const char *display);

/// Draws picture `number`: a 640×360 block in a colour of its own, moved
/// 8 pixels further across the screen each picture, over a cleared trail.
void raw_painter_draw(raw_painter *painter, int number);

void raw_painter_destroy(raw_painter *painter);

#endif
