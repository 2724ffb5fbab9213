/*
 * A Node-API addon of one function, `trim()`: the C library's malloc_trim(0), which gives back
 * to the system the free pages anywhere in the allocator's heaps, not only at their top (which
 * free() alone returns). Built and loaded by malloc-trim.ts; see there for why.
 *
 * The few Node-API declarations it needs are written out here rather than taken from
 * <node_api.h>: Node-API's ABI is stable across Node versions by design, and a machine with Node
 * often has no Node headers (they come with a -dev package). `napi_register_module_v1` is the
 * symbol Node looks for in an addon that does not register itself.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h> /* a C library header first: it defines __GLIBC__ where it is glibc */
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

extern napi_status napi_create_function(napi_env env, const char *name, size_t length,
                                        napi_callback cb, void *data, napi_value *result);
extern napi_status napi_get_boolean(napi_env env, bool value, napi_value *result);

/* Whether any memory was given back (malloc_trim's answer); false where there is no glibc. */
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#ifdef __GLIBC__
  released = malloc_trim(0) == 1;
#endif
  napi_value result = NULL;
  napi_get_boolean(env, released, &result);
  return result;
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env,
                                                                          napi_value exports) {
  (void)exports;
  napi_value fn = NULL;
  /* NAPI_AUTO_LENGTH: the name is NUL-terminated. */
  if (napi_create_function(env, "trim", (size_t)-1, trim, NULL, &fn) != 0) return NULL;
  return fn;
}
