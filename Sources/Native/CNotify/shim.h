#include <libnotify/notify.h>
#include <glib.h>
#include <glib-object.h>

/* g_signal_connect is a macro, which Swift cannot call: a wrapper for the "closed" signal. */
static inline unsigned long cairn_notify_on_closed(NotifyNotification *n, GCallback callback, gpointer data) {
    return g_signal_connect_data(n, "closed", callback, data, NULL, 0);
}
