/* Kernel launch counter, preloaded (LD_PRELOAD) into a verify worker run under compute-sanitizer.

   compute-sanitizer holds CUDA's profiling interface (CUPTI), so torch's profiler counts nothing there; without
   a count a clean sanitizer summary cannot tell "checked, no error" from "the kernel never ran". This library
   interposes the runtime's (nvcc 13's `__cudaLaunchKernel` included) and the driver's launch entry points that code outside libcudart calls through the
   dynamic linker (an nvcc `<<<...>>>` stub, torch's kernels, Triton's and cupy's launchers), counts each
   launch by function, and passes it on unchanged. The worker resets and reads the counts through ctypes
   (`cudalint_launches_reset`, `cudalint_launches_read`). No CUDA header is needed: the arguments are passed
   through as they came. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned x, y, z; } dim3_t;
typedef int status_t; /* cudaError_t and CUresult are both C enums */

/* RUNTIME: a host function (cudaLaunchKernel); KERNEL: a cudaKernel_t (nvcc 13's `<<<...>>>` stubs call
   __cudaLaunchKernel with one); DRIVER: a CUfunction */
enum { RUNTIME = 0, KERNEL = 1, DRIVER = 2, SLOTS = 4096 };

struct slot { const void *function; int api; const void *via; long count; };  /* via: the real entry point */
static struct slot slots[SLOTS];
static long dropped; /* launches of functions past the table's size: counted, never lost silently */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void count(const void *function, int api, const void *via) {
  uintptr_t start = ((uintptr_t)function >> 4) % SLOTS;
  pthread_mutex_lock(&lock);
  for (unsigned probe = 0; probe < SLOTS; probe++) {
    struct slot *s = &slots[(start + probe) % SLOTS];
    if (s->function == function && s->api == api) { s->count++; goto done; }
    if (s->function == NULL) {
      s->function = function;
      s->api = api;
      s->via = via;
      s->count = 1;
      goto done;
    }
  }
  dropped++;
done:
  pthread_mutex_unlock(&lock);
}

/* The entry point the caller would have bound to without this library: the first definition in the caller's
   own dependencies (an extension loaded with RTLD_LOCAL finds its libcudart there, outside the global scope
   RTLD_NEXT searches), else the next in the global scope. */
static void *real(const char *name, const void *caller, const void *self) {
  Dl_info info;
  void *found = NULL;
  if (dladdr(caller, &info) && info.dli_fname) {
    void *object = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (object) {
      found = dlsym(object, name);
      dlclose(object);
    }
  }
  if (!found || found == self) found = dlsym(RTLD_NEXT, name);
  if (!found || found == self) {
    fprintf(stderr, "cudalint launch counter: no %s to pass the launch on to\n", name);
    abort();
  }
  return found;
}

/* Counts the launch of `f` and calls the real entry point `name` (of type `type`) with the arguments that follow. */
#define PASS_ON(name, type, api, f, ...)                                          \
  do {                                                                            \
    type entry = (type)real(#name, __builtin_return_address(0), (const void *)name); \
    count(f, api, (const void *)entry);                                           \
    return entry(__VA_ARGS__);                                                    \
  } while (0)

typedef status_t (*runtime_launch_t)(const void *, dim3_t, dim3_t, void **, size_t, void *);
typedef status_t (*runtime_launch_ex_t)(const void *, const void *, void **);
typedef status_t (*driver_launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    void *, void **, void **);
typedef status_t (*driver_cooperative_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                         void *, void **);
typedef status_t (*driver_launch_ex_t)(const void *, void *, void **, void **);

status_t cudaLaunchKernel(const void *f, dim3_t g, dim3_t b, void **args, size_t shared, void *stream) {
  PASS_ON(cudaLaunchKernel, runtime_launch_t, RUNTIME, f, f, g, b, args, shared, stream);
}

status_t __cudaLaunchKernel(const void *f, dim3_t g, dim3_t b, void **args, size_t shared, void *stream) {
  PASS_ON(__cudaLaunchKernel, runtime_launch_t, KERNEL, f, f, g, b, args, shared, stream);
}

status_t __cudaLaunchKernel_ptsz(const void *f, dim3_t g, dim3_t b, void **args, size_t shared, void *stream) {
  PASS_ON(__cudaLaunchKernel_ptsz, runtime_launch_t, KERNEL, f, f, g, b, args, shared, stream);
}

status_t cudaLaunchCooperativeKernel(const void *f, dim3_t g, dim3_t b, void **args, size_t shared, void *stream) {
  PASS_ON(cudaLaunchCooperativeKernel, runtime_launch_t, RUNTIME, f, f, g, b, args, shared, stream);
}

status_t cudaLaunchKernelExC(const void *config, const void *f, void **args) {
  PASS_ON(cudaLaunchKernelExC, runtime_launch_ex_t, RUNTIME, f, config, f, args);
}

status_t cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
  PASS_ON(cuLaunchKernel, driver_launch_t, DRIVER, f, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}

status_t cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void *stream, void **params) {
  PASS_ON(cuLaunchCooperativeKernel, driver_cooperative_t, DRIVER, f, f, gx, gy, gz, bx, by, bz, shared, stream,
          params);
}

status_t cuLaunchKernelEx(const void *config, void *f, void **params, void **extra) {
  PASS_ON(cuLaunchKernelEx, driver_launch_ex_t, DRIVER, f, config, f, params, extra);
}

void cudalint_launches_reset(void) {
  pthread_mutex_lock(&lock);
  memset(slots, 0, sizeof slots);
  dropped = 0;
  pthread_mutex_unlock(&lock);
}

/* The function's name, demangled where it can be ("?" where CUDA cannot name it): cudaFuncGetName of the
   libcudart whose entry point launched it, cuKernelGetName or cuFuncGetName of libcuda. */
static const char *name_of(const struct slot *s, char **owned) {
  static const char *getters[] = {"cudaFuncGetName", "cuKernelGetName", "cuFuncGetName"};
  const char *name = NULL;
  Dl_info info;
  void *library = NULL;
  *owned = NULL;
  if (s->api != RUNTIME)
    library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  else if (dladdr(s->via, &info) && info.dli_fname)
    library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  status_t (*get)(const char **, const void *) = library ? dlsym(library, getters[s->api]) : NULL;
  if (!get || get(&name, s->function) != 0) name = NULL;
  if (library) dlclose(library);
  if (!name) return "?";
  void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY);
  char *(*demangle)(const char *, char *, size_t *, int *) = cxx ? dlsym(cxx, "__cxa_demangle") : NULL;
  int failed = 1;
  char *plain = demangle ? demangle(name, NULL, NULL, &failed) : NULL;
  if (cxx) dlclose(cxx);
  if (plain && failed == 0) return *owned = plain;
  free(plain);
  return name;
}

/* Writes "count<TAB>name\n" for each launched function (and "count<TAB>?dropped\n" for launches the table
   could not hold) into `out`, at most `size` bytes; returns the bytes the whole text needs. */
long cudalint_launches_read(char *out, long size) {
  long used = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < SLOTS + 1; i++) {
    char line[1024];
    int length;
    if (i < SLOTS) {
      if (!slots[i].function) continue;
      char *owned;
      length = snprintf(line, sizeof line, "%ld\t%s\n", slots[i].count, name_of(&slots[i], &owned));
      free(owned);
    } else {
      if (!dropped) continue;
      length = snprintf(line, sizeof line, "%ld\t?dropped\n", dropped);
    }
    if (length >= (int)sizeof line) {  /* a name cut short still ends its line */
      length = sizeof line - 1;
      line[length - 1] = '\n';
    }
    if (used + length <= size) memcpy(out + used, line, length);
    used += length;
  }
  pthread_mutex_unlock(&lock);
  return used;
}
