#include "native_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every library Cairn opens this way, with the handle once opened. A short list, searched in order. */
static struct {
    const char *soname;
    void *handle;
} opened[16];
static int opened_count;
static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

/* The handle `soname` was opened with, or NULL. */
static void *opened_handle(const char *soname) {
    void *handle = NULL;
    pthread_mutex_lock(&opening);
    for (int i = 0; i < opened_count; ++i) {
        if (strcmp(opened[i].soname, soname) == 0) {
            handle = opened[i].handle;
            break;
        }
    }
    pthread_mutex_unlock(&opening);
    return handle;
}

static void *open_library(const char *soname, int scope) {
    void *handle = opened_handle(soname);
    if (handle) return handle;
    /* Opened without holding the list's lock, so a thread asking for a library opened already (Tesseract, while
     * another thread loads libvips for ~11 ms) is not held up. Two threads opening the same library get the same
     * handle: the dynamic loader opens it once and counts the second open. */
    handle = dlopen(soname, RTLD_LAZY | scope);
    if (!handle) return NULL;
    pthread_mutex_lock(&opening);
    int known = 0;
    for (int i = 0; i < opened_count; ++i) known |= strcmp(opened[i].soname, soname) == 0;
    if (!known && opened_count < (int)(sizeof opened / sizeof opened[0])) {
        /* A copy: a caller's name may be a temporary (a Swift string passed as a C string). */
        opened[opened_count].soname = strdup(soname);
        opened[opened_count].handle = handle;
        ++opened_count;
    }
    pthread_mutex_unlock(&opening);
    return handle;
}

void *cairn_native_open(const char *soname) { return open_library(soname, RTLD_GLOBAL); }

void *cairn_native_open_local(const char *soname) { return open_library(soname, RTLD_LOCAL); }

int cairn_native_available(const char *soname) { return cairn_native_open(soname) != NULL; }

void *cairn_native_symbol(const char *soname, const char *symbol) {
    void *handle = cairn_native_open(soname);
    if (!handle) {
        const char *why = dlerror();
        fprintf(stderr, "cairn: the native library %s could not be loaded (%s). Run `make deps` "
                        "(scripts/install-deps.sh) to install the Debian packages Cairn needs.\n",
                soname, why ? why : "not found");
        exit(70);
    }
    dlerror();
    void *address = dlsym(handle, symbol);
    if (!address) {
        fprintf(stderr, "cairn: %s has no function %s: it is another version than the one Cairn was built "
                        "with. Run `make deps` and rebuild Cairn.\n", soname, symbol);
        exit(70);
    }
    return address;
}
