/* libmicrohttpd (the loopback web server of `cairn serve`), opened on first use (native_loader.h): with GnuTLS and
 * its nine dependencies it cost every other command the dynamic loader's time. The functions WebApp calls, written
 * by scripts/native-stubs.py; the compiler checks each stub against the header (read as CMicroHTTPD's shim reads
 * it). */
#include "../CMicroHTTPD/shim.h"
#include "native_loader.h"

#define SONAME "libmicrohttpd.so.12"
_Static_assert(MHD_VERSION < 0x01000000, "libmicrohttpd's soname changed: update SONAME");

int cairn_microhttpd_available(void) { return cairn_native_available(SONAME); }

/* MHD_set_connection_option is variadic, which Swift cannot call: one fixed-argument wrapper per use. */
enum MHD_Result cairn_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return CAIRN_NATIVE_FUNCTION(SONAME, MHD_set_connection_option)(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/* MHD_get_connection_info is variadic too: the connection's socket, or -1. */
int cairn_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        CAIRN_NATIVE_FUNCTION(SONAME, MHD_get_connection_info)(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

CAIRN_NATIVE_STUB(SONAME, enum MHD_Result, MHD_add_connection, (struct MHD_Daemon *daemon, MHD_socket client_socket, const struct sockaddr *addr, socklen_t addrlen), (daemon, client_socket, addr, addrlen))
CAIRN_NATIVE_STUB(SONAME, enum MHD_Result, MHD_add_response_header, (struct MHD_Response *response, const char *header, const char *content), (response, header, content))
CAIRN_NATIVE_STUB(SONAME, struct MHD_PostProcessor *, MHD_create_post_processor, (struct MHD_Connection *connection, size_t buffer_size, MHD_PostDataIterator iter, void *iter_cls), (connection, buffer_size, iter, iter_cls))
CAIRN_NATIVE_STUB(SONAME, struct MHD_Response *, MHD_create_response_from_buffer, (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))
CAIRN_NATIVE_STUB(SONAME, struct MHD_Response *, MHD_create_response_from_fd64, (uint64_t size, int fd), (size, fd))
CAIRN_NATIVE_STUB(SONAME, enum MHD_Result, MHD_destroy_post_processor, (struct MHD_PostProcessor *pp), (pp))
CAIRN_NATIVE_STUB_VOID(SONAME, MHD_destroy_response, (struct MHD_Response *response), (response))
CAIRN_NATIVE_STUB(SONAME, int, MHD_get_connection_values, (struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls), (connection, kind, iterator, iterator_cls))
CAIRN_NATIVE_STUB(SONAME, const char *, MHD_get_version, (void), ())
CAIRN_NATIVE_STUB(SONAME, const char *, MHD_lookup_connection_value, (struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key), (connection, kind, key))
CAIRN_NATIVE_STUB(SONAME, enum MHD_Result, MHD_post_process, (struct MHD_PostProcessor *pp, const char *post_data, size_t post_data_len), (pp, post_data, post_data_len))
CAIRN_NATIVE_STUB(SONAME, enum MHD_Result, MHD_queue_response, (struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response), (connection, status_code, response))
CAIRN_NATIVE_STUB(SONAME, struct MHD_Daemon *, MHD_start_daemon_va, (unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap), (flags, port, apc, apc_cls, dh, dh_cls, ap))
CAIRN_NATIVE_STUB_VOID(SONAME, MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))
