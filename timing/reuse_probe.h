// The reuse probe of a sampled launch (docs/timing.md, "Cross-workgroup reuse"): what the workgroups the
// slice leaves out would have shared with it through the L2 and the MALL.
//
// A slice of c CUs per XCD holds c of the 38 CUs' workgroups of a device round, so a line that k co-resident
// workgroups of an XCD read (a GEMM's A or B panel) is fetched below the L2 by each slice workgroup that reads
// it, where the device fetches it once for all k: the slice, whose MALL and HBM bandwidths are its share of the
// device's, reads k times the bytes the device reads per workgroup. The probe emulates (for their addresses only,
// never timed) a few of the sample's first workgroup's co-residents that the slice does not hold, spread
// evenly over them: some on its XCD (they share its L2), some on the other XCDs (they share the MALL). For
// each line the first workgroup loads, the number k of co-residents reading it that the slice leaves out is
// estimated from the probed ones, stratified by distance in the dispatch stream (sharing falls with it: a GEMM's
// row panel is shared by the next few workgroups, its column panel by every row's): the nearest left-out
// co-residents are all probed and counted exactly, the rest are probed evenly spread (each at the middle of its
// interval) and their count scaled by members over probed (the systematic-sample estimate of a count); and the number m of its readers the slice simulates is counted (the
// first workgroup and the slice's co-residents, whose reads share the slice's fetch); a fetch of that line by the
// slice then stands for m / (m + k) of the device's one fetch: of an MALL access with the XCD's readers, of an
// HBM fetch with the device's (with one CU per XCD, m = 1: 1 / (1 + k)). The shares are averaged per buffer over the first workgroup's lines
// and applied to every simulated workgroup's fetches below the L2 (sim::MemoryHierarchy): bandwidth and
// counted bytes, not latency (a neighbour that reads the line at the same time waits for the same fill).
// This is the reuse-distance model of Nugteren et al. (HPCA 2014, "A detailed GPU cache model based on reuse
// distance theory") in its first two steps: which reads the co-resident threads share, from their address
// streams, without timing them; and whether the cache still holds the line when the peer reads it. A peer's read
// shares a fill only if the bytes the device moves between the two reads fit the cache that would serve it
// (each XCD's L2 for a peer on the first workgroup's XCD, else the MALL; capacities from the hardware table).
// Co-residents start together (one device round), so the bytes between two reads are estimated from how far
// each reader is through its own traffic when it reads the line: the difference, times the co-resident
// workgroups that share the cache (all of them moving bytes at the same rate). A kernel whose workgroups read
// one buffer a whole pass apart (each re-reads another's slice) shares nothing once a pass outgrows the MALL;
// a GEMM's neighbours read a panel at the same step of their k loops, a distance near zero.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "emu/dispatch.h"
#include "emu/program.h"
#include "timing/hw_params.h"
#include "timing/sampling.h"
#include "timing/trace.h"

namespace asmevo::timing {

// Co-residents of one kind (on workgroup 0's XCD or elsewhere; nearest in the stream or the rest) that the slice
// leaves out: `members` of them, of which `probed` are emulated (all of the nearest; the rest spread evenly).
struct ProbeStratum {
  bool same_xcd = false;
  uint64_t members = 0;
  std::vector<uint64_t> probed;
  double scale() const { return probed.empty() ? 0.0 : static_cast<double>(members) / static_cast<double>(probed.size()); }
};

struct ReuseProbe {
  std::vector<ProbeStratum> strata;
  // Co-residents the slice simulates (their reads of a line share the slice's own fetch): on its XCD, elsewhere.
  std::vector<uint64_t> xcd_simulated, device_simulated;
  // Workgroups resident together on workgroup 0's XCD and on the device (they fill its L2 and the MALL at once).
  uint64_t resident_xcd = 0, resident_device = 0;
  bool empty() const { return ids().empty(); }
  std::vector<uint64_t> ids() const;  // the probed workgroups, ascending
};

// The probe of a sampled plan (OwnCus slices; none for an unsampled plan or XcdWindow): at most
// `max_peers` co-residents, and as many as `budget` wave-instructions pay for at `per_group` each.
ReuseProbe plan_reuse_probe(const HwParams& hw, const SamplePlan& plan, unsigned per_cu, double per_group, double budget,
                            unsigned max_peers);

// The read shares (DeviceSlice::read_shares) the probe measured: `first` is workgroup 0's trace, `peer(id)`
// a probed or simulated co-resident's. Buffers workgroup 0 does not load keep the whole fetch (no entry), and so
// do buffers whose readers are further apart than the caches hold (hw.l2_bytes per XCD, hw.mall_bytes).
std::vector<DeviceSlice::ReadShare> measure_read_shares(const HwParams& hw, const emu::Program& program, const emu::Launch& launch,
                                                        const ReuseProbe& probe, const std::vector<WaveTrace>& first,
                                                        const std::function<const std::vector<WaveTrace>&(uint64_t)>& peer);

}  // namespace asmevo::timing
