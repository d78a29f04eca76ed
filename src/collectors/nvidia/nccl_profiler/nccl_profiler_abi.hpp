#pragma once
// Our declarations of the parts of NCCL's profiler plugin interface we use (versions 4 and 5: NCCL 2.26 and
// later), written from the interface's documented layout (NCCL's plugins/profiler/README.md and the
// per-version structs it describes). Only the event kinds we enable are declared in full; the unions keep
// the size and alignment of the largest member NCCL fills in, which we never touch.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace rpl::nccl_abi {

using Result = int;  // ncclResult_t; ncclSuccess = 0
inline constexpr Result kSuccess = 0;
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// Event kinds (the activation mask's bits and the descriptors' `type`).
inline constexpr uint64_t kGroup = 1u << 0, kColl = 1u << 1, kP2p = 1u << 2;

struct CollV4 {
  uint64_t seqNumber;
  const char* func;
  const void* sendBuff;
  void* recvBuff;
  size_t count;
  int root;
  const char* datatype;
  uint8_t nChannels;
  uint8_t nWarps;
  const char* algo;
  const char* proto;
};
struct P2pV4 {
  const char* func;
  void* buff;
  const char* datatype;
  size_t count;
  int peer;
  uint8_t nChannels;
};
// Version 5 appends the group the call belongs to (its parent is then the API call's event). Version 4's
// structs end on their 8-byte alignment, so the member lands where NCCL's flat struct has it.
struct CollV5 {
  CollV4 v4;
  void* parentGroup;
};
struct P2pV5 {
  P2pV4 v4;
  void* parentGroup;
};
static_assert(offsetof(CollV5, parentGroup) == 80 && offsetof(P2pV5, parentGroup) == 40, "NCCL's v5 layout");

struct DescrV4 {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    CollV4 coll;
    P2pV4 p2p;
    unsigned char other[64];
  };
};
struct DescrV5 {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    CollV5 coll;
    P2pV5 p2p;
    unsigned char other[96];
  };
};

struct ProfilerV4 {
  const char* name;
  Result (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes, int nranks,
                 int rank, Logger logfn);
  Result (*startEvent)(void* context, void** eHandle, DescrV4* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, void* eStateArgs);
  Result (*finalize)(void* context);
};
struct ProfilerV5 {
  const char* name;
  Result (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName, int nNodes, int nranks,
                 int rank, Logger logfn);
  Result (*startEvent)(void* context, void** eHandle, DescrV5* eDescr);
  Result (*stopEvent)(void* eHandle);
  Result (*recordEventState)(void* eHandle, int eState, void* eStateArgs);
  Result (*finalize)(void* context);
};

}  // namespace rpl::nccl_abi
