// Asks an X window to close the way a window manager's close button does: the ICCCM
// WM_DELETE_WINDOW client message. The E2E suite has no window manager under Xvfb, and
// xdotool's `windowclose` destroys the window instead, which would skip the app's
// "close during a run?" confirmation that this is meant to reach.
//
//   wm-close WINDOW_ID       (an id from `xdotool search`)
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: wm-close WINDOW_ID\n");
        return 2;
    }
    Display *d = XOpenDisplay(NULL);
    if (!d) {
        fprintf(stderr, "wm-close: cannot open display %s\n", XDisplayName(NULL));
        return 1;
    }
    Window w = (Window)strtoul(argv[1], NULL, 0);
    XEvent e = {0};
    e.xclient.type = ClientMessage;
    e.xclient.window = w;
    e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
    e.xclient.format = 32;
    e.xclient.data.l[0] = (long)XInternAtom(d, "WM_DELETE_WINDOW", False);
    e.xclient.data.l[1] = CurrentTime;
    Status ok = XSendEvent(d, w, False, NoEventMask, &e);
    XSync(d, False);
    XCloseDisplay(d);
    return ok ? 0 : 1;
}
