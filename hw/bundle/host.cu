// The host program of a simsort bundle: replays the launch sequence that
// `simsort emit bundle` recorded (manifest.txt) on a real NVIDIA GPU through
// the CUDA driver API, then checks every `check` buffer against the bytes the
// simulator (or the reference sort) expects. Exit status 0 only when every
// check matches. Build: nvcc -O2 -o host host.cu -lcuda
//
// manifest.txt, one statement a line, tokens separated by blanks:
//   simsort-bundle 1
//   module M FILE ENTRY SHARED_BYTES      PTX file, its entry, its shared memory
//   alloc B BYTES                         zeroed device buffer B
//   write B OFFSET FILE                   copy FILE's bytes to B+OFFSET
//   launch M GX GY GZ BX BY BZ N PARAM*   N parameters: ptr B OFF | u32 V | u64 V
//   check B OFFSET FILE                   B+OFFSET must hold FILE's bytes
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static void die(const std::string &what) {
  std::cerr << "bundle host: " << what << std::endl;
  std::exit(1);
}

static void ck(CUresult r, const std::string &what) {
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuGetErrorName(r, &name);
    die(what + ": " + (name ? name : "unknown CUDA error"));
  }
}

static std::vector<char> slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die("cannot read " + path);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

struct Module {
  CUfunction fn;
  unsigned shared;
  std::string entry;
};

int main(int argc, char **argv) {
  std::string manifest = argc > 1 ? argv[1] : "manifest.txt";
  std::string dir = manifest.find('/') == std::string::npos ? "." : manifest.substr(0, manifest.rfind('/'));
  std::ifstream in(manifest);
  if (!in) die("cannot read " + manifest);
  ck(cuInit(0), "cuInit");
  CUdevice dev;
  ck(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  ck(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  ck(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  std::map<std::string, Module> modules;
  std::map<std::string, std::pair<CUdeviceptr, size_t>> bufs;
  std::string line;
  int lineno = 0, launches = 0, checks = 0, failed = 0;
  while (std::getline(in, line)) {
    lineno++;
    std::istringstream s(line);
    std::string op;
    if (!(s >> op) || op[0] == '#') continue;
    std::string at = manifest + ":" + std::to_string(lineno) + ": ";
    if (op == "simsort-bundle") {
      int v = 0;
      s >> v;
      if (v != 1) die(at + "unsupported bundle version");
    } else if (op == "module") {
      std::string name, file, entry;
      unsigned shared = 0;
      if (!(s >> name >> file >> entry >> shared)) die(at + "bad module line");
      std::vector<char> ptx = slurp(dir + "/" + file);
      ptx.push_back(0);
      CUmodule mod;
      char log[8192] = {0};
      CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *vals[] = {log, (void *)(uintptr_t)sizeof(log)};
      CUresult r = cuModuleLoadDataEx(&mod, ptx.data(), 2, opts, vals);
      if (r != CUDA_SUCCESS) die(at + "cannot load " + file + ": " + log);
      Module m;
      ck(cuModuleGetFunction(&m.fn, mod, entry.c_str()), at + "no entry " + entry);
      m.shared = shared;
      m.entry = entry;
      if (shared > 48 * 1024)
        ck(cuFuncSetAttribute(m.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared),
           at + "shared memory size");
      modules[name] = m;
    } else if (op == "alloc") {
      std::string name;
      size_t bytes = 0;
      if (!(s >> name >> bytes)) die(at + "bad alloc line");
      CUdeviceptr p;
      ck(cuMemAlloc(&p, bytes ? bytes : 1), at + "cuMemAlloc");
      ck(cuMemsetD8(p, 0, bytes ? bytes : 1), at + "cuMemsetD8");
      bufs[name] = {p, bytes};
    } else if (op == "write" || op == "check") {
      std::string name, file;
      size_t off = 0;
      if (!(s >> name >> off >> file)) die(at + "bad " + op + " line");
      if (!bufs.count(name)) die(at + "unknown buffer " + name);
      std::vector<char> data = slurp(dir + "/" + file);
      if (off + data.size() > bufs[name].second) die(at + "outside buffer " + name);
      if (op == "write") {
        ck(cuMemcpyHtoD(bufs[name].first + off, data.data(), data.size()), at + "cuMemcpyHtoD");
      } else {
        ck(cuCtxSynchronize(), at + "synchronize before check");
        std::vector<char> got(data.size());
        ck(cuMemcpyDtoH(got.data(), bufs[name].first + off, got.size()), at + "cuMemcpyDtoH");
        checks++;
        if (got != data) {
          size_t i = 0;
          while (got[i] == data[i]) i++;
          std::cerr << at << "buffer " << name << " differs from " << file << " first at byte "
                    << off + i << std::endl;
          failed++;
        }
      }
    } else if (op == "launch") {
      std::string name;
      unsigned g[3], b[3], n;
      if (!(s >> name >> g[0] >> g[1] >> g[2] >> b[0] >> b[1] >> b[2] >> n)) die(at + "bad launch line");
      if (!modules.count(name)) die(at + "unknown module " + name);
      std::vector<uint64_t> store(n);
      std::vector<void *> args(n);
      for (unsigned i = 0; i < n; i++) {
        std::string kind;
        s >> kind;
        if (kind == "ptr") {
          std::string buf;
          uint64_t off;
          if (!(s >> buf >> off) || !bufs.count(buf)) die(at + "bad ptr parameter");
          store[i] = bufs[buf].first + off;
        } else if (kind == "u32" || kind == "u64") {
          if (!(s >> store[i])) die(at + "bad " + kind + " parameter");
        } else {
          die(at + "bad parameter kind " + kind);
        }
        // A u32 parameter is read from the low 4 bytes (little endian).
        args[i] = &store[i];
      }
      Module &m = modules[name];
      ck(cuLaunchKernel(m.fn, g[0], g[1], g[2], b[0], b[1], b[2], m.shared, 0, args.data(), nullptr),
         at + "launch of " + m.entry);
      ck(cuCtxSynchronize(), at + m.entry + " failed");
      launches++;
    } else {
      die(at + "unknown statement " + op);
    }
  }
  std::cerr << "bundle host: " << launches << " launches, " << checks << " checks, " << failed
            << " failed" << std::endl;
  return failed ? 1 : 0;
}
