#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* MHD_set_connection_option is variadic, which Swift cannot call: one fixed-argument wrapper per use (defined
 * beside the library's other stubs, Sources/Native/NativeLoader/libmicrohttpd_stubs.c: libmicrohttpd is opened on first
 * use). */
enum MHD_Result cairn_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds);
/* The socket of a connection (MHD_get_connection_info is variadic too), or -1. */
int cairn_mhd_connection_fd(struct MHD_Connection *connection);
