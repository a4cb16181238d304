/* libnotify (reminders as desktop notifications), opened on first use (native_loader.h): the functions
 * Notifications calls (with the GLib ones it uses, looked up through libnotify, which depends on them), written
 * by scripts/native-stubs.py; the compiler checks each stub against the headers. */
#include <libnotify/notify.h>
#include <glib.h>
#include <glib-object.h>
#include "native_loader.h"

#define SONAME "libnotify.so.4"
_Static_assert(NOTIFY_VERSION_MAJOR == 0, "libnotify's soname changed: update SONAME");

int cairn_notify_available(void) { return cairn_native_available(SONAME); }

CAIRN_NATIVE_STUB_VOID(SONAME, g_error_free, (GError *error), (error))
CAIRN_NATIVE_STUB(SONAME, gboolean, g_main_context_iteration, (GMainContext *context, gboolean may_block), (context, may_block))
CAIRN_NATIVE_STUB_VOID(SONAME, g_object_unref, (gpointer object), (object))
CAIRN_NATIVE_STUB(SONAME, gulong, g_signal_connect_data, (gpointer instance, const gchar *detailed_signal, GCallback c_handler, gpointer data, GClosureNotify destroy_data, GConnectFlags connect_flags), (instance, detailed_signal, c_handler, data, destroy_data, connect_flags))
CAIRN_NATIVE_STUB(SONAME, gboolean, notify_init, (const char *app_name), (app_name))
CAIRN_NATIVE_STUB(SONAME, gboolean, notify_is_initted, (void), ())
CAIRN_NATIVE_STUB_VOID(SONAME, notify_notification_add_action, (NotifyNotification *notification, const char *action, const char *label, NotifyActionCallback callback, gpointer user_data, GFreeFunc free_func), (notification, action, label, callback, user_data, free_func))
CAIRN_NATIVE_STUB(SONAME, NotifyNotification *, notify_notification_new, (const char *summary, const char *body, const char *icon), (summary, body, icon))
CAIRN_NATIVE_STUB_VOID(SONAME, notify_notification_set_category, (NotifyNotification *notification, const char *category), (notification, category))
CAIRN_NATIVE_STUB_VOID(SONAME, notify_notification_set_timeout, (NotifyNotification *notification, gint timeout), (notification, timeout))
CAIRN_NATIVE_STUB(SONAME, gboolean, notify_notification_show, (NotifyNotification *notification, GError **error), (notification, error))
CAIRN_NATIVE_STUB(SONAME, gboolean, notify_get_server_info, (char **ret_name, char **ret_vendor, char **ret_version, char **ret_spec_version), (ret_name, ret_vendor, ret_version, ret_spec_version))
CAIRN_NATIVE_STUB_VOID(SONAME, g_free, (gpointer mem), (mem))
