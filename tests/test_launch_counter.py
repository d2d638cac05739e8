"""The launch counter preloaded under compute-sanitizer (cudalint/verify/launch_counter.c), on the CPU: a stand-in
CUDA runtime and a stand-in extension linked against it, the way an nvcc-built extension calls
`cudaLaunchKernel` through the dynamic linker."""
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cudalint.verify import launch_counter

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")

# libcuda, where cuKernelGetName names the cudaKernel_t handles nvcc 13's stubs launch through __cudaLaunchKernel
DRIVER = r"""
int cuKernelGetName(const char **name, const void *kernel) { *name = "_Z12tiled_kernelv"; return kernel == 0; }
"""

RUNTIME = r"""
static const char *names[] = {"_Z11relu_kernelPfi", "_Z4idlev"};
int cudaLaunchKernel(const void *f, ...) { return f == (const void *)names || f == (const void *)(names + 1) ? 0 : 1; }
int cudaFuncGetName(const char **name, const void *f) { *name = f == (const void *)names ? names[0] : names[1];
                                                        return 0; }
int __cudaLaunchKernel(const void *kernel, ...) { return kernel == (const void *)names ? 0 : 1; }
const void *relu_kernel(void) { return names; }
const void *idle_kernel(void) { return names + 1; }
"""

EXTENSION = r"""
typedef struct { unsigned x, y, z; } dim3_t;
int cudaLaunchKernel(const void *, dim3_t, dim3_t, void **, unsigned long, void *);
const void *relu_kernel(void);
const void *idle_kernel(void);
int __cudaLaunchKernel(const void *, dim3_t, dim3_t, void **, unsigned long, void *);
int launch(int times, int idle) {
  dim3_t one = {1, 1, 1};
  int failed = 0;
  for (int i = 0; i < times; i++) failed += cudaLaunchKernel(relu_kernel(), one, one, 0, 0, 0);
  for (int i = 0; i < idle; i++) failed += cudaLaunchKernel(idle_kernel(), one, one, 0, 0, 0);
  failed += __cudaLaunchKernel(relu_kernel(), one, one, 0, 0, 0);  /* a <<<...>>> stub of nvcc 13 */
  return failed;
}
"""

READER = """
import ctypes, json, sys
from cudalint.verify.launch_counter import Counter
extension = ctypes.CDLL(sys.argv[1])
counter = Counter.loaded()
extension.launch(5, 0)
counter.reset()
failed = extension.launch(3, 2)
print(json.dumps({"failed": failed, "counts": counter.counts()}))
"""


def _compile(tmp_path: Path, name: str, text: str, *link: str) -> Path:
    source, library = tmp_path / f"{name}.c", tmp_path / f"lib{name}.so"
    if name == "cuda":  # found by its soname, as the real driver library is
        link = (*link, "-Wl,-soname,libcuda.so.1")
    source.write_text(textwrap.dedent(text))
    compiler = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source), *link], check=True)
    return library


def test_the_counter_counts_launches_by_demangled_name_and_passes_them_on(tmp_path: Path) -> None:
    _compile(tmp_path, "fakecudart", RUNTIME)
    (tmp_path / "libcuda.so.1").symlink_to(_compile(tmp_path, "cuda", DRIVER))
    extension = _compile(tmp_path, "extension", EXTENSION, f"-L{tmp_path}", "-lfakecudart", "-Wl,--no-as-needed", "-lcuda",
                         f"-Wl,-rpath,{tmp_path}")
    library = launch_counter.build(str(tmp_path))
    assert library and Path(library).is_file()
    assert launch_counter.build(str(tmp_path)) == library  # built once per source
    env = launch_counter.preload({"PATH": "/usr/bin:/bin", "LD_PRELOAD": "libother.so"}, library)
    assert env["LD_PRELOAD"] == f"{library} libother.so"
    env["LD_PRELOAD"] = library
    env["PYTHONPATH"] = str(Path(launch_counter.__file__).parents[2])
    run = subprocess.run([sys.executable, "-c", READER, str(extension)], env=env, capture_output=True, text=True,
                         check=True)
    result = __import__("json").loads(run.stdout)
    # the real entry point was called with the arguments as given (it fails on anything else), and the reset
    # forgot the five launches before it
    assert result == {"failed": 0, "counts": {"relu_kernel(float*, int)": 3, "idle()": 2, "tiled_kernel()": 1}}


def test_without_the_counter_nothing_is_loaded() -> None:
    assert launch_counter.Counter.loaded() is None
